import HearthPasswords
import Testing

/// The worked values of auth-api §9.2: password `password`, salt bytes `NaCl`.
struct WorkedValuesTests {
    static let salt = bytes("NaCl")

    struct Case: Sendable, CustomTestStringConvertible {
        let algorithm: PasswordHashAlgorithm
        let hash: String
        var testDescription: String { algorithm.name.rawValue }
    }

    static let cases = [
        Case(
            algorithm: PasswordHashAlgorithm(name: .hmacSHA256, signerKey: bytes("secret")),
            hash: "C5WKh+Qa5RkMlq+h5DX5XKsBOsQt/DEKEaUBAMQqrlI="),
        Case(
            algorithm: PasswordHashAlgorithm(name: .sha256, rounds: 1),
            hash: "sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM="),
        Case(
            algorithm: PasswordHashAlgorithm(name: .md5, rounds: 0),
            hash: "NjJkMTlmN2U3ZGRjYjU5NDY3Mjg3NzZkMjVlNDEwZWQ="),
        Case(
            algorithm: PasswordHashAlgorithm(
                name: .standardScrypt, cpuMemCost: 1024, blockSize: 8, parallelization: 16, dkLen: 64),
            hash: "/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWIurzDZLiKjiG/xCSedmDDaxyevuUqD7m2DYMvfoswGQA=="),
        Case(
            algorithm: PasswordHashAlgorithm(name: .pbkdf2SHA256, rounds: 100_000),
            hash: "5VnqZoKMOie1mhCQGRw7u1FV5Kv8Yb8uxEArtVAl0vSlwAQqXe8VxejCRe5enxUyNN4OWQ60PGRIVPZzEvcQtw=="),
        Case(
            algorithm: PasswordHashAlgorithm(
                name: .scrypt,
                signerKey: base64("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
                saltSeparator: base64("Bw=="),
                rounds: 8,
                memoryCost: 14),
            hash: "V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T/rcaGieN04q/ZPJ08WhJEHGjj9lz/2TT+/86N5VjVoc5DdBhBiw=="),
    ]

    @Test(arguments: cases)
    func workedValueMatches(_ example: Case) throws {
        try example.algorithm.validate()
        #expect(example.algorithm.matches(password: "password", hash: base64(example.hash), salt: Self.salt))
    }

    @Test(arguments: cases)
    func wrongPasswordDoesNotMatch(_ example: Case) {
        #expect(!example.algorithm.matches(password: "Password", hash: base64(example.hash), salt: Self.salt))
    }

    @Test(arguments: cases)
    func wrongSaltDoesNotMatch(_ example: Case) {
        #expect(!example.algorithm.matches(password: "password", hash: base64(example.hash), salt: bytes("NaCL")))
    }
}
