import Crypto
import CryptoExtras

/// A project's Firebase-scrypt hash configuration (what the Firebase console shows as
/// "password hash parameters"), and the hash Firebase Authentication stores for every password.
///
/// The hash is not scrypt's output itself: scrypt derives an AES-256 key from the password, and
/// the stored value is the project's signer key encrypted with it, so it is as long as the
/// signer key.
public struct FirebaseScrypt: Sendable, Equatable, Codable {
    /// The secret encrypted to form every hash; normally 64 bytes, never empty.
    public var signerKey: [UInt8]
    /// Appended to each user's salt before hashing; may be empty.
    public var saltSeparator: [UInt8]
    /// scrypt's block size r, 1...8.
    public var rounds: Int
    /// The base-2 logarithm of scrypt's cost N, 1...14.
    public var memoryCost: Int

    /// The scrypt parameters Firebase accepts.
    static let roundsRange = 1...8
    static let memoryCostRange = 1...14

    public init(signerKey: [UInt8], saltSeparator: [UInt8], rounds: Int, memoryCost: Int) {
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
    }

    /// A fresh configuration: 64 random signer-key bytes, 1 random separator byte, rounds 8,
    /// memory cost 14 (the shape of a new Firebase project's parameters).
    public static func generate() -> FirebaseScrypt {
        var generator = SystemRandomNumberGenerator()
        func randomBytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }
        return FirebaseScrypt(
            signerKey: randomBytes(64),
            saltSeparator: randomBytes(1),
            rounds: 8,
            memoryCost: 14
        )
    }

    /// Checks that the signer key is present and rounds and memory cost are within Firebase's ranges.
    public func validate() throws(PasswordHashError) {
        guard !signerKey.isEmpty else {
            throw .invalidParameter("signerKey is required for SCRYPT")
        }
        guard Self.roundsRange.contains(rounds) else {
            throw .invalidParameter("rounds must be between 1 and 8 for SCRYPT (got \(rounds))")
        }
        guard Self.memoryCostRange.contains(memoryCost) else {
            throw .invalidParameter("memoryCost must be between 1 and 14 for SCRYPT (got \(memoryCost))")
        }
    }

    /// The stored hash of `password` with the user's `salt`: scrypt(P, salt‖separator,
    /// N = 2^memoryCost, r = rounds, p = 1, 64 bytes), whose first 32 bytes key AES-256-CTR
    /// (all-zero initial counter block) to encrypt the signer key.
    public func hash(password: String, salt: [UInt8]) throws(PasswordHashError) -> [UInt8] {
        try hash(passwordBytes: Array(password.utf8), salt: salt)
    }

    /// Whether `password` and `salt` produce `expected`, compared in constant time. An invalid
    /// configuration matches nothing.
    public func matches(password: String, salt: [UInt8], expected: [UInt8]) -> Bool {
        guard let actual = try? hash(password: password, salt: salt) else { return false }
        return ConstantTime.equal(actual, expected)
    }

    /// ``hash(password:salt:)`` for a password already encoded as UTF-8.
    func hash(passwordBytes: [UInt8], salt: [UInt8]) throws(PasswordHashError) -> [UInt8] {
        let derived = try derivedKey(password: passwordBytes, salt: salt)
        let aesKey = SymmetricKey(data: derived.prefix(32))
        do {
            let zeroCounter = try AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16))
            return Array(try AES._CTR.encrypt(signerKey, using: aesKey, nonce: zeroCounter))
        } catch {
            throw .computationFailed("AES-256-CTR refused the derived key")
        }
    }

    /// scrypt's 64-byte output for this configuration, before the AES step.
    func derivedKey(password: [UInt8], salt: [UInt8]) throws(PasswordHashError) -> [UInt8] {
        try validate()
        return try Scrypt.derive(
            password: password,
            salt: salt + saltSeparator,
            costN: 1 << memoryCost,
            blockSize: rounds,
            parallelism: 1,
            length: 64
        )
    }
}
