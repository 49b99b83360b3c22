import HearthPasswords
import Testing

/// `PasswordHashAlgorithm.validate()` against Firebase's ranges (auth-api §9.2, §9.4).
struct ValidationTests {
    static let key = bytes("secret")
    static let argon2 = PasswordHashAlgorithm.Argon2Parameters(
        hashType: .argon2id, iterations: 2, memoryCostKib: 64, parallelism: 2, hashLengthBytes: 32)

    static let accepted: [PasswordHashAlgorithm] = [
        .init(name: .scrypt, signerKey: key, rounds: 1, memoryCost: 1),
        .init(name: .scrypt, signerKey: key, saltSeparator: [7], rounds: 8, memoryCost: 14),
        .init(name: .standardScrypt, cpuMemCost: 2, blockSize: 1, parallelization: 1, dkLen: 1),
        .init(name: .standardScrypt, cpuMemCost: 1 << 20, blockSize: 8, parallelization: 16, dkLen: 1024),
        .init(name: .bcrypt),
        .init(name: .pbkdf2SHA256, rounds: 0),
        .init(name: .pbkdf2SHA256, rounds: 120_000),
        .init(name: .pbkdfSHA1, rounds: 1),
        .init(name: .hmacSHA512, signerKey: key),
        .init(name: .hmacMD5, signerKey: key, inputOrder: .saltAndPassword),
        .init(name: .sha1, rounds: 1),
        .init(name: .sha512, rounds: 8192),
        .init(name: .md5, rounds: 0),
        .init(name: .md5, rounds: 8192),
        .init(name: .argon2, argon2: argon2),
        .init(
            name: .argon2,
            argon2: .init(
                hashType: .argon2d, iterations: 16, memoryCostKib: 32768, parallelism: 16, hashLengthBytes: 1024,
                version: .version10)),
        .init(name: .argon2, argon2: .init(hashType: .argon2i, iterations: 1, memoryCostKib: 8, parallelism: 1, hashLengthBytes: 4)),
    ]

    @Test(arguments: accepted)
    func inRangeDescriptionIsAccepted(_ algorithm: PasswordHashAlgorithm) throws {
        try algorithm.validate()
    }

    static let refused: [(PasswordHashAlgorithm, String)] = {
        func argon2(_ change: (inout PasswordHashAlgorithm.Argon2Parameters) -> Void) -> PasswordHashAlgorithm {
            var parameters = Self.argon2
            change(&parameters)
            return .init(name: .argon2, argon2: parameters)
        }
        return [
            (.init(name: .scrypt, rounds: 8, memoryCost: 14), "signerKey is required for SCRYPT"),
            (.init(name: .scrypt, signerKey: [], rounds: 8, memoryCost: 14), "signerKey is required for SCRYPT"),
            (.init(name: .scrypt, signerKey: key, memoryCost: 14), "rounds is required for SCRYPT (1 to 8)"),
            (.init(name: .scrypt, signerKey: key, rounds: 0, memoryCost: 14), "rounds must be between 1 and 8 for SCRYPT (got 0)"),
            (.init(name: .scrypt, signerKey: key, rounds: 9, memoryCost: 14), "rounds must be between 1 and 8 for SCRYPT (got 9)"),
            (.init(name: .scrypt, signerKey: key, rounds: 8), "memoryCost is required for SCRYPT (1 to 14)"),
            (.init(name: .scrypt, signerKey: key, rounds: 8, memoryCost: 15), "memoryCost must be between 1 and 14 for SCRYPT (got 15)"),
            (
                .init(name: .standardScrypt, blockSize: 8, parallelization: 1, dkLen: 64),
                "cpuMemCost is required for STANDARD_SCRYPT (a power of two, at least 2)"
            ),
            (
                .init(name: .standardScrypt, cpuMemCost: 1000, blockSize: 8, parallelization: 1, dkLen: 64),
                "cpuMemCost must be a power of two, at least 2, for STANDARD_SCRYPT (got 1000)"
            ),
            (
                .init(name: .standardScrypt, cpuMemCost: 1, blockSize: 8, parallelization: 1, dkLen: 64),
                "cpuMemCost must be a power of two, at least 2, for STANDARD_SCRYPT (got 1)"
            ),
            (
                .init(name: .standardScrypt, cpuMemCost: 1 << 16, blockSize: 1, parallelization: 1, dkLen: 64),
                "cpuMemCost must be less than 2^(16·blockSize) for STANDARD_SCRYPT (got 65536 with blockSize 1)"
            ),
            (
                .init(name: .standardScrypt, cpuMemCost: 1 << 21, blockSize: 8, parallelization: 1, dkLen: 64),
                "cpuMemCost × blockSize × 128 must be at most 1073741824 bytes for STANDARD_SCRYPT (got cpuMemCost 2097152, blockSize 8)"
            ),
            (
                .init(name: .standardScrypt, cpuMemCost: 1024, parallelization: 1, dkLen: 64),
                "blockSize is required for STANDARD_SCRYPT (1 to 16)"
            ),
            (
                .init(name: .standardScrypt, cpuMemCost: 1024, blockSize: 17, parallelization: 1, dkLen: 64),
                "blockSize must be between 1 and 16 for STANDARD_SCRYPT (got 17)"
            ),
            (
                .init(name: .standardScrypt, cpuMemCost: 1024, blockSize: 8, parallelization: 0, dkLen: 64),
                "parallelization must be between 1 and 16 for STANDARD_SCRYPT (got 0)"
            ),
            (
                .init(name: .standardScrypt, cpuMemCost: 1024, blockSize: 8, parallelization: 1, dkLen: 0),
                "dkLen must be between 1 and 1024 for STANDARD_SCRYPT (got 0)"
            ),
            (.init(name: .pbkdf2SHA256), "rounds is required for PBKDF2_SHA256 (0 to 120000)"),
            (.init(name: .pbkdfSHA1, rounds: -1), "rounds must be between 0 and 120000 for PBKDF_SHA1 (got -1)"),
            (.init(name: .pbkdf2SHA256, rounds: 120_001), "rounds must be between 0 and 120000 for PBKDF2_SHA256 (got 120001)"),
            (.init(name: .hmacSHA256), "signerKey is required for HMAC_SHA256"),
            (.init(name: .hmacSHA1, signerKey: []), "signerKey is required for HMAC_SHA1"),
            (.init(name: .sha256), "rounds is required for SHA256 (1 to 8192)"),
            (.init(name: .sha256, rounds: 0), "rounds must be between 1 and 8192 for SHA256 (got 0)"),
            (.init(name: .sha1, rounds: 8193), "rounds must be between 1 and 8192 for SHA1 (got 8193)"),
            (.init(name: .md5, rounds: -1), "rounds must be between 0 and 8192 for MD5 (got -1)"),
            (.init(name: .md5, rounds: 8193), "rounds must be between 0 and 8192 for MD5 (got 8193)"),
            (.init(name: .argon2), "argon2Parameters are required for ARGON2"),
            (argon2 { $0.iterations = 0 }, "argon2Parameters.iterations must be between 1 and 16 for ARGON2 (got 0)"),
            (argon2 { $0.iterations = 17 }, "argon2Parameters.iterations must be between 1 and 16 for ARGON2 (got 17)"),
            (argon2 { $0.parallelism = 0 }, "argon2Parameters.parallelism must be between 1 and 16 for ARGON2 (got 0)"),
            (argon2 { $0.parallelism = 17 }, "argon2Parameters.parallelism must be between 1 and 16 for ARGON2 (got 17)"),
            (argon2 { $0.hashLengthBytes = 3 }, "argon2Parameters.hashLengthBytes must be between 4 and 1024 for ARGON2 (got 3)"),
            (
                argon2 { $0.hashLengthBytes = 1025 },
                "argon2Parameters.hashLengthBytes must be between 4 and 1024 for ARGON2 (got 1025)"
            ),
            (
                argon2 { $0.memoryCostKib = 32769 },
                "argon2Parameters.memoryCostKib must be between 16 and 32768 for ARGON2 (got 32769)"
            ),
            (argon2 { $0.memoryCostKib = 15 }, "argon2Parameters.memoryCostKib must be between 16 and 32768 for ARGON2 (got 15)"),
        ]
    }()

    @Test(arguments: refused)
    func outOfRangeDescriptionIsRefused(_ algorithm: PasswordHashAlgorithm, _ message: String) {
        #expect(throws: PasswordHashError.invalidParameter(message)) { try algorithm.validate() }
        #expect(!algorithm.matches(password: "password", hash: [UInt8](repeating: 0, count: 32), salt: []))
    }

    @Test func everyAlgorithmNameRoundTripsThroughItsFirebaseName() {
        for name in PasswordHashAlgorithm.Name.allCases {
            #expect(PasswordHashAlgorithm.Name(rawValue: name.rawValue) == name)
        }
        #expect(PasswordHashAlgorithm.Name.allCases.count == 14)
        #expect(PasswordHashAlgorithm.Name(rawValue: "PBKDF_SHA1") == .pbkdfSHA1)
        #expect(PasswordHashAlgorithm.InputOrder(rawValue: "UNSPECIFIED_ORDER") == .unspecified)
        #expect(PasswordHashAlgorithm.Argon2Parameters.Version(rawValue: "VERSION_10") == .version10)
        #expect(PasswordHashAlgorithm.Argon2Parameters.HashType(rawValue: "ARGON2_ID") == .argon2id)
    }
}
