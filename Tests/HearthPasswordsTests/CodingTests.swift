import Foundation
import HearthPasswords
import Testing

/// The value types survive a JSON round trip, with Firebase's names for the enumerations.
struct CodingTests {
    @Test func hashAlgorithmRoundTrips() throws {
        let algorithm = PasswordHashAlgorithm(
            name: .argon2,
            saltSeparator: [7],
            inputOrder: .passwordAndSalt,
            argon2: .init(
                hashType: .argon2id, iterations: 2, memoryCostKib: 64, parallelism: 1, hashLengthBytes: 32,
                version: .version10, associatedData: [1, 2]))
        let json = try JSONEncoder().encode(algorithm)
        #expect(try JSONDecoder().decode(PasswordHashAlgorithm.self, from: json) == algorithm)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"ARGON2\""))
        #expect(text.contains("\"ARGON2_ID\""))
        #expect(text.contains("\"VERSION_10\""))
        #expect(text.contains("\"PASSWORD_AND_SALT\""))
    }

    @Test func firebaseScryptRoundTrips() throws {
        let configuration = FirebaseScrypt.generate()
        let json = try JSONEncoder().encode(configuration)
        #expect(try JSONDecoder().decode(FirebaseScrypt.self, from: json) == configuration)
    }
}
