import HearthPasswords
import Testing

/// Input orders, iteration counts, separators and the remaining digest, HMAC and KDF algorithms;
/// expected values computed independently (Python's hashlib and hmac).
struct DigestAlgorithmTests {
    static let salt = bytes("NaCl")

    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let algorithm: PasswordHashAlgorithm
        let hash: String
        var testDescription: String { label }
    }

    static let cases = [
        Case(
            label: "SHA256, 3 rounds: SHA256(SHA256(SHA256(S‖P)))",
            algorithm: PasswordHashAlgorithm(name: .sha256, rounds: 3),
            hash: "UhhFZrocLCuEQ+Xor7k3ux6X9Hnx1gMy/T0V9y36u1Y="),
        Case(
            label: "SHA512, 2 rounds, password first",
            algorithm: PasswordHashAlgorithm(name: .sha512, rounds: 2, inputOrder: .passwordAndSalt),
            hash: "QEqaPx0Xj9i8lKp3Lqm6oQmIGNkLGwZZXq2XG6giSYPz40JwRIGeCwa0BCjm7PUPiaUC/aUwhLhv1eOaEytwQQ=="),
        Case(
            label: "SHA1, 1 round, explicit salt first",
            algorithm: PasswordHashAlgorithm(name: .sha1, rounds: 1, inputOrder: .saltAndPassword),
            hash: "4ynUBUr/OQVsCQQZk/6FmoYdJy8="),
        Case(
            label: "MD5, 1 round (binary digest)",
            algorithm: PasswordHashAlgorithm(name: .md5, rounds: 1),
            hash: "YtGffn3ctZRnKHdtJeQQ7Q=="),
        Case(
            label: "MD5, 2 rounds",
            algorithm: PasswordHashAlgorithm(name: .md5, rounds: 2),
            hash: "MgNMqep9mKRt/YHbHMM8WQ=="),
        Case(
            label: "MD5, 0 rounds, password first (hex text)",
            algorithm: PasswordHashAlgorithm(name: .md5, rounds: 0, inputOrder: .passwordAndSalt),
            hash: "ZjI1YjAxOWE5NDcwMzE4ZDQ0ZDYwZTE0MTY2MzFmMzQ="),
        Case(
            label: "SHA256 with separator: SHA256(S‖SEP‖P)",
            algorithm: PasswordHashAlgorithm(name: .sha256, saltSeparator: bytes("SEP"), rounds: 1),
            hash: "s7gBNAsHI9qm/jVG9qLEcpNoQlZJfr1qrM0L6RRiZ4E="),
        Case(
            label: "HMAC_SHA512, salt first",
            algorithm: PasswordHashAlgorithm(name: .hmacSHA512, signerKey: bytes("secret"), inputOrder: .saltAndPassword),
            hash: "1BpFtuBO0eX0GvrmiNttaT90HJDzQp286zZGGkNh2aMRjqOAttVRKWPDvY3hNyvXMoiwxXD6ODLT/pLy/WFcpw=="),
        Case(
            label: "HMAC_SHA1",
            algorithm: PasswordHashAlgorithm(name: .hmacSHA1, signerKey: bytes("secret")),
            hash: "tSjltw8SZxad1AY6k8wDYCwUeyI="),
        Case(
            label: "HMAC_MD5, explicit password first",
            algorithm: PasswordHashAlgorithm(name: .hmacMD5, signerKey: bytes("secret"), inputOrder: .passwordAndSalt),
            hash: "4tZGVrzeu9LZ9eWZ03FrLg=="),
        Case(
            label: "PBKDF_SHA1, 1000 rounds, 20 bytes",
            algorithm: PasswordHashAlgorithm(name: .pbkdfSHA1, rounds: 1000),
            hash: "lyyzCFlAUpkzVJDKKPSl1PyJGrk="),
        Case(
            label: "PBKDF2_SHA256, 0 rounds taken as 1",
            algorithm: PasswordHashAlgorithm(name: .pbkdf2SHA256, rounds: 0),
            hash: "TWMkbSxOQq+tvuafjDQJq8gIebxeYGhwx+Y+MWmkOdo="),
        Case(
            label: "STANDARD_SCRYPT with separator",
            algorithm: PasswordHashAlgorithm(
                name: .standardScrypt, saltSeparator: bytes("SEP"), cpuMemCost: 16, blockSize: 1, parallelization: 1,
                dkLen: 32),
            hash: "ojkKbIbDbv1VHFgsaxRGGMULJgWlvqb8gaVBf9OpoBc="),
        Case(
            label: "STANDARD_SCRYPT, r = 16, p = 1",
            algorithm: PasswordHashAlgorithm(
                name: .standardScrypt, cpuMemCost: 16, blockSize: 16, parallelization: 1, dkLen: 32),
            hash: "/eNFUT3kA90OXj8Ox4+kwd1+bgbVr4toqM/5aS9qQSQ="),
    ]

    @Test(arguments: cases)
    func independentlyComputedHashMatches(_ example: Case) {
        #expect(example.algorithm.matches(password: "password", hash: base64(example.hash), salt: Self.salt))
        #expect(!example.algorithm.matches(password: "passwort", hash: base64(example.hash), salt: Self.salt))
    }

    @Test func inputOrderMatters() {
        let saltFirst = PasswordHashAlgorithm(name: .sha256, rounds: 1)
        var passwordFirst = saltFirst
        passwordFirst.inputOrder = .passwordAndSalt
        let hash = base64("sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM=")
        #expect(saltFirst.matches(password: "password", hash: hash, salt: Self.salt))
        #expect(!passwordFirst.matches(password: "password", hash: hash, salt: Self.salt))
    }

    @Test func emptyPasswordAndSaltAreHashed() {
        let pbkdf2 = PasswordHashAlgorithm(name: .pbkdf2SHA256, rounds: 1)
        #expect(pbkdf2.matches(password: "", hash: base64("984LZT0tcqQQjPWr6RL/3Xd2Ftu7J6cOggTzri0Pb60="), salt: []))
        let scrypt = PasswordHashAlgorithm(
            name: .standardScrypt, cpuMemCost: 16, blockSize: 1, parallelization: 1, dkLen: 64)
        let scryptHash = base64(
            "d9ZXYjhleyA7GcpCwYoEl/FrSETjB0ro39/6P+3iFEL80Aad7QlI+DJqdToPyB8X6NPg+y4NNijPNeIMONGJBg==")
        #expect(scrypt.matches(password: "", hash: scryptHash, salt: []))
    }

    @Test func malformedStoredValuesDoNotMatch() {
        let pbkdf2 = PasswordHashAlgorithm(name: .pbkdf2SHA256, rounds: 1)
        #expect(!pbkdf2.matches(password: "", hash: [], salt: []))
        #expect(!pbkdf2.matches(password: "", hash: [UInt8](repeating: 0, count: 1025), salt: []))
        let md5 = PasswordHashAlgorithm(name: .md5, rounds: 0)
        #expect(!md5.matches(password: "password", hash: bytes("62D19F7E7DDCB5946728776D25E410ED"), salt: Self.salt))
        #expect(!md5.matches(password: "password", hash: hex("62d19f7e7ddcb5946728776d25e410ed"), salt: Self.salt))
    }

    @Test func invalidDescriptionNeverMatches() {
        let missingKey = PasswordHashAlgorithm(name: .hmacSHA256)
        #expect(!missingKey.matches(password: "password", hash: base64("C5WKh+Qa5RkMlq+h5DX5XKsBOsQt/DEKEaUBAMQqrlI="), salt: Self.salt))
        let missingRounds = PasswordHashAlgorithm(name: .sha256)
        #expect(!missingRounds.matches(password: "password", hash: base64("sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM="), salt: Self.salt))
    }
}
