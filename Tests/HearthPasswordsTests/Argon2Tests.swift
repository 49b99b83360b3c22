import Testing

@testable import HearthPasswords

/// Argon2 against RFC 9106 §5 and hashes computed with the reference implementation (through
/// argon2-cffi).
struct Argon2Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let variant: Argon2.Variant
        let version: Argon2.Version
        let tag: String
        var testDescription: String { "Argon2\(variant) v\(version)" }
    }

    /// RFC 9106 §5.1–5.3 (version 0x13) and the reference implementation's results for the same
    /// inputs with version 0x10: password 32 × 0x01, salt 16 × 0x02, secret 8 × 0x03,
    /// associated data 12 × 0x04, t = 3, m = 32 KiB, p = 4, 32-byte tag.
    static let rfcInputs = [
        Vector(variant: .d, version: .v13, tag: "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb"),
        Vector(variant: .i, version: .v13, tag: "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8"),
        Vector(variant: .id, version: .v13, tag: "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"),
        Vector(variant: .d, version: .v10, tag: "96a9d4e5a1734092c85e29f410a45914a5dd1f5cbf08b2670da68a0285abf32b"),
        Vector(variant: .i, version: .v10, tag: "87aeedd6517ab830cd9765cd8231abb2e647a5dee08f7c05e02fcb763335d0fd"),
        Vector(variant: .id, version: .v10, tag: "b64615f07789b66b645b67ee9ed3b377ae350b6bfcbb0fc95141ea8f322613c0"),
    ]

    @Test(arguments: rfcInputs)
    func rfcTestVector(_ vector: Vector) {
        let tag = Argon2.hash(
            password: [UInt8](repeating: 0x01, count: 32),
            salt: [UInt8](repeating: 0x02, count: 16),
            secret: [UInt8](repeating: 0x03, count: 8),
            associatedData: [UInt8](repeating: 0x04, count: 12),
            iterations: 3,
            memoryKiB: 32,
            parallelism: 4,
            tagLength: 32,
            variant: vector.variant,
            version: vector.version
        )
        #expect(tag == hex(vector.tag))
    }

    @Test func longTagUsesTheVariableLengthHash() {
        let tag = Argon2.hash(
            password: bytes("password"), salt: bytes("somesalt"), iterations: 1, memoryKiB: 8, parallelism: 1,
            tagLength: 1024, variant: .d, version: .v13)
        #expect(tag.count == 1024)
        #expect(Array(tag.suffix(32)) == hex("a39e1deebfa2889c752df6962dfb3648949068e8ab85deaf281b677f5a5952c3"))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let parameters: PasswordHashAlgorithm.Argon2Parameters
        let saltSeparator: [UInt8]?
        let hash: String
        var testDescription: String { label }
    }

    static let cases = [
        Case(
            label: "ARGON2_ID t=2 m=64 p=1",
            parameters: .init(hashType: .argon2id, iterations: 2, memoryCostKib: 64, parallelism: 1, hashLengthBytes: 32),
            saltSeparator: nil,
            hash: "FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI="),
        Case(
            label: "ARGON2_I VERSION_10 t=2 m=64 p=2",
            parameters: .init(
                hashType: .argon2i, iterations: 2, memoryCostKib: 64, parallelism: 2, hashLengthBytes: 32,
                version: .version10),
            saltSeparator: nil,
            hash: "sPc90YKDjKPe+FHrPuZu49kbUGl6X871kfvpdkzK7zs="),
        Case(
            label: "ARGON2_D with associated data and a salt separator",
            parameters: .init(
                hashType: .argon2d, iterations: 1, memoryCostKib: 32, parallelism: 1, hashLengthBytes: 16,
                associatedData: bytes("context")),
            saltSeparator: bytes("SEP"),
            hash: "C0JwEmhx1uvh0EpppN6/Ig=="),
        Case(
            label: "ARGON2_ID 100-byte tag",
            parameters: .init(hashType: .argon2id, iterations: 1, memoryCostKib: 16, parallelism: 1, hashLengthBytes: 100),
            saltSeparator: nil,
            hash:
                "XNqOQm6JLIf99/dS9+4RPMeYwl3bOHstFAyzqMjq2oVP2g48NdxacwCpAhPk8LiFwvTHjxUuyjgqVpIoKY/QATOodV9sJQJFZkfnzO+f5phGqfTgdmzqUxzbcOlzCCkOIhy3Dw=="
        ),
        Case(
            label: "ARGON2_I t=2 m=2048 p=2 (several address blocks per segment)",
            parameters: .init(hashType: .argon2i, iterations: 2, memoryCostKib: 2048, parallelism: 2, hashLengthBytes: 32),
            saltSeparator: nil,
            hash: "u8VVIS/KDUbnnhUmbM9nvjDxysfiZ27FUC7nfazb49w="),
        Case(
            label: "ARGON2_ID t=3 m=100 p=3 (memory rounded down) 4-byte tag",
            parameters: .init(hashType: .argon2id, iterations: 3, memoryCostKib: 100, parallelism: 3, hashLengthBytes: 4),
            saltSeparator: nil,
            hash: "wYih9w=="),
    ]

    @Test(arguments: cases)
    func verifiesThroughTheAlgorithm(_ example: Case) {
        let algorithm = PasswordHashAlgorithm(name: .argon2, saltSeparator: example.saltSeparator, argon2: example.parameters)
        #expect(algorithm.matches(password: "password", hash: base64(example.hash), salt: bytes("somesalt")))
        #expect(!algorithm.matches(password: "password1", hash: base64(example.hash), salt: bytes("somesalt")))
    }

    @Test func versionDefaultsTo13() {
        let parameters = PasswordHashAlgorithm.Argon2Parameters(
            hashType: .argon2id, iterations: 1, memoryCostKib: 8, parallelism: 1, hashLengthBytes: 32)
        #expect(parameters.version == .version13)
    }
}
