import Testing

@testable import HearthPasswords

/// bcrypt against published vectors (OpenBSD's and Openwall's test tables) and hashes made by
/// pyca/bcrypt (OpenBSD's algorithm); every expected string was checked with pyca/bcrypt.
struct BcryptTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let password: [UInt8]
        let hash: String
        var testDescription: String { hash }
    }

    static let textVectors = [
        Vector(password: bytes("U*U"), hash: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"),
        Vector(password: bytes("U*U*"), hash: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK"),
        Vector(password: bytes("U*U*U"), hash: "$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a"),
        Vector(password: [], hash: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy"),
        Vector(
            password: bytes("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789chars after 72 are ignored"),
            hash: "$2a$05$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui"),
        Vector(password: bytes("password"), hash: "$2a$04$kDB7fB9zMZ34LvoFDwJGDuvWC/Rk.tgyw79DuvWDXH3f6t2gcDgpu"),
        Vector(password: bytes("password"), hash: "$2b$04$RwBeC7pKQMFk6Wh3VR1zq.94pSu5HJQFS2v/d1PA8BABbjy5K.CRu"),
        Vector(password: bytes("password"), hash: "$2y$04$kzY2qA4z87.UGveh5JVHXOPlO08TD2laO796mSUklsS5BOUVV63cW"),
        Vector(password: bytes("password"), hash: "$2a$10$N9qo8uLOickgx2ZMRZoMye8fOsiTWZqYtkxvXkKm8BMzjT7t/vIdq"),
        Vector(password: bytes("pässwörd 🔑"), hash: "$2b$06$0123456789abcdefghijkuxYTHY7REhgcCaazeOkQDnhF50xrXU9u"),
        Vector(password: bytes(String(repeating: "a", count: 71)), hash: "$2b$04$0123456789abcdefghijkutF5vDs9tIDONvV769tfsLTh.5SQU/PO"),
        Vector(password: bytes(String(repeating: "a", count: 72)), hash: "$2b$04$0123456789abcdefghijkuS2oNdylzRqHgoUhdHwdLxPI6Qj9CJpu"),
        Vector(password: bytes(String(repeating: "a", count: 100)), hash: "$2b$04$0123456789abcdefghijkuS2oNdylzRqHgoUhdHwdLxPI6Qj9CJpu"),
    ]

    /// Openwall's vectors for bytes with the high bit set (not valid UTF-8 on their own).
    static let byteVectors = [
        Vector(password: [0xA3], hash: "$2a$05$/OK.fbVrR/bpIqNJ5ianF.Sa7shbm4.OzKpvFnX1pQLmQW96oUlCq"),
        Vector(password: [0xFF, 0xFF, 0xA3], hash: "$2b$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e"),
        Vector(password: [0xFF, 0xFF, 0xA3], hash: "$2y$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e"),
        Vector(password: [0xFF, 0xA3, 0x33, 0x34, 0x35], hash: "$2y$05$/OK.fbVrR/bpIqNJ5ianF.nRht2l/HRhr6zmCp9vYUvvsqynflf9e"),
    ]

    static let algorithm = PasswordHashAlgorithm(name: .bcrypt)

    @Test(arguments: textVectors + byteVectors)
    func recomputesStoredString(_ vector: Vector) throws {
        let stored = bytes(vector.hash)
        #expect(try Bcrypt.hash(password: vector.password, setting: stored) == stored)
        #expect(try Bcrypt.hash(password: vector.password, setting: Array(stored.prefix(29))) == stored)
    }

    @Test(arguments: textVectors)
    func verifiesThroughTheAlgorithm(_ vector: Vector) {
        let password = String(decoding: vector.password, as: UTF8.self)
        let stored = bytes(vector.hash)
        #expect(Self.algorithm.matches(password: password, hash: stored, salt: bytes("ignored")))
        #expect(!Self.algorithm.matches(password: "!" + password, hash: stored, salt: []))
    }

    @Test func passwordEndsAtTheFirstNUL() {
        let stored = bytes("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")
        #expect(Self.algorithm.matches(password: "U*U\u{0}more", hash: stored, salt: []))
    }

    @Test(arguments: [
        "",
        "$2a$05$CCCCCCCCCCCCCCCCCCCCC",
        "$2x$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2a$03$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2a$32$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2a$5$CCCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2a$05$CCCCCCCCCCCCCCCCCCCC!.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeWx",
        "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOe",
    ])
    func malformedStringsDoNotMatch(_ stored: String) {
        #expect(!Self.algorithm.matches(password: "U*U", hash: bytes(stored), salt: []))
    }

    @Test func malformedSettingIsReported() {
        #expect(throws: PasswordHashError.self) { try Bcrypt.hash(password: [], setting: bytes("$2a$05$")) }
    }
}
