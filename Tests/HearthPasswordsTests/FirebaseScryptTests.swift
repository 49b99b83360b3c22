import Testing

@testable import HearthPasswords

/// Firebase's modified scrypt against the published vectors (auth-api §9.3).
struct FirebaseScryptTests {
    static let parametersA = FirebaseScrypt(
        signerKey: base64("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
        saltSeparator: base64("Bw=="),
        rounds: 8,
        memoryCost: 14
    )

    static let parametersB = FirebaseScrypt(
        signerKey: base64("NkZlKPkYEFfnbh1nYTfLsbqQnQ6jyRV4itK7iUD+hjO96tsAYhBG40BVS3AuJyiwHinqc5RR3oA+lppOXPNRmw=="),
        saltSeparator: base64("Bw=="),
        rounds: 8,
        memoryCost: 14
    )

    struct Vector: Sendable, CustomTestStringConvertible {
        let label: String
        let parameters: FirebaseScrypt
        let password: String
        let salt: String
        let hash: String
        var testDescription: String { label }
    }

    static let vectors = [
        Vector(
            label: "A1", parameters: parametersA, password: "user1password", salt: "42xEC+ixf3L2lw==",
            hash: "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="),
        Vector(
            label: "A2", parameters: parametersA, password: "hunter2", salt: "42xEC+ixf3L2lw==",
            hash: "70k8Vg5B3/OrvJOiqusnasv0dLcBHoDAqJrJr7TRLBfMw4MitWx51YXJYFdGiyMbMeKtWtLf5HiBDcN0SUOm4A=="),
        Vector(
            label: "A3", parameters: parametersA, password: "password", salt: "TmFDbA==",
            hash: "V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T/rcaGieN04q/ZPJ08WhJEHGjj9lz/2TT+/86N5VjVoc5DdBhBiw=="),
        Vector(
            label: "B", parameters: parametersB, password: "two space password", salt: "GGc/eCzFj6DM0g==",
            hash: "5RZZm9Jz7p/u+FGXMInlJtAYFmMBj6ioL1UOdWfsUknAFCnsPpnnKRLyXSUFwwKbM4lx7TdFclBsT16Z8uuumg=="),
    ]

    @Test(arguments: vectors)
    func hashMatchesPublishedVector(_ vector: Vector) throws {
        let hash = try vector.parameters.hash(password: vector.password, salt: base64(vector.salt))
        #expect(hash == base64(vector.hash))
        #expect(vector.parameters.matches(password: vector.password, salt: base64(vector.salt), expected: hash))
        #expect(!vector.parameters.matches(password: vector.password + "x", salt: base64(vector.salt), expected: hash))
    }

    @Test func a1IntermediateDerivedKey() throws {
        let derived = try Self.parametersA.derivedKey(password: bytes("user1password"), salt: base64("42xEC+ixf3L2lw=="))
        #expect(derived.count == 64)
        #expect(Array(derived.prefix(32)) == hex("e87fa22d9b4e3be6bbd41214f2f98f8c78b694bd17e12c2b73501054a2099ce1"))
    }

    @Test func saltSeparatorIsAppendedToTheSalt() throws {
        var withoutSeparator = Self.parametersA
        withoutSeparator.saltSeparator = []
        let expected = try Self.parametersA.hash(password: "user1password", salt: base64("42xEC+ixf3L2lw=="))
        let moved = try withoutSeparator.hash(password: "user1password", salt: hex("e36c440be8b17f72f69707"))
        #expect(moved == expected)
    }

    @Test func hashIsAsLongAsTheSignerKey() throws {
        let parameters = FirebaseScrypt(signerKey: bytes("short key"), saltSeparator: [], rounds: 1, memoryCost: 1)
        #expect(try parameters.hash(password: "", salt: []).count == 9)
    }

    @Test func wrongSaltOrTruncatedHashDoesNotMatch() throws {
        let vector = Self.vectors[0]
        let hash = base64(vector.hash)
        #expect(!vector.parameters.matches(password: vector.password, salt: base64("TmFDbA=="), expected: hash))
        #expect(!vector.parameters.matches(password: vector.password, salt: base64(vector.salt), expected: Array(hash.dropLast())))
    }

    @Test func invalidConfigurationIsRefused() {
        let valid = Self.parametersA
        var noKey = valid
        noKey.signerKey = []
        var tooManyRounds = valid
        tooManyRounds.rounds = 9
        var noRounds = valid
        noRounds.rounds = 0
        var tooMuchMemory = valid
        tooMuchMemory.memoryCost = 15
        var noMemory = valid
        noMemory.memoryCost = 0
        for parameters in [noKey, tooManyRounds, noRounds, tooMuchMemory, noMemory] {
            #expect(throws: PasswordHashError.self) { try parameters.hash(password: "password", salt: []) }
            #expect(!parameters.matches(password: "password", salt: [], expected: []))
        }
        #expect(throws: PasswordHashError.invalidParameter("rounds must be between 1 and 8 for SCRYPT (got 9)")) {
            try tooManyRounds.validate()
        }
    }

    @Test func generatedConfigurationHasFirebaseShape() throws {
        let first = FirebaseScrypt.generate()
        let second = FirebaseScrypt.generate()
        #expect(first.signerKey.count == 64)
        #expect(first.saltSeparator.count == 1)
        #expect(first.rounds == 8)
        #expect(first.memoryCost == 14)
        #expect(first.signerKey != second.signerKey)
        try first.validate()
        let hash = try first.hash(password: "password", salt: bytes("salt"))
        #expect(hash.count == 64)
        #expect(first.matches(password: "password", salt: bytes("salt"), expected: hash))
    }
}
