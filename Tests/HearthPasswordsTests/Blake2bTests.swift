import Testing

@testable import HearthPasswords

/// BLAKE2b against Python's hashlib.blake2b, over messages around the 128-byte block boundary.
struct Blake2bTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let length: Int
        let digest64: String
        let digest1: String
        let digest33: String
        var testDescription: String { "\(length)-byte message" }
    }

    /// Message bytes are `index % 251`.
    static let vectors = [
        Vector(
            length: 0,
            digest64:
                "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce",
            digest1: "2e", digest33: "ddca500c4d28f7f2816de1574f840e4878c1c5aa30c149745e0149273b214c359d"),
        Vector(
            length: 1,
            digest64:
                "2fa3f686df876995167e7c2e5d74c4c7b6e48f8068fe0e44208344d480f7904c36963e44115fe3eb2a3ac8694c28bcb4f5a0f3276f2e79487d8219057a506e4b",
            digest1: "a1", digest33: "397e11debacad31a1397ec5699ae9f79810666224533cb460c058319c9e61b548d"),
        Vector(
            length: 127,
            digest64:
                "b6292669ccd38d5f01caae96ba272c76a879a45743afa0725d83b9ebb26665b731f1848c52f11972b6644f554c064fa90780dbbbf3a89d4fc31f67df3e5857ef",
            digest1: "86", digest33: "6027a7c69930e882679428d214fecafb33119fc6c47536eaed05fee272432de36e"),
        Vector(
            length: 128,
            digest64:
                "2319e3789c47e2daa5fe807f61bec2a1a6537fa03f19ff32e87eecbfd64b7e0e8ccff439ac333b040f19b0c4ddd11a61e24ac1fe0f10a039806c5dcc0da3d115",
            digest1: "f4", digest33: "87fb2f807b2fa36f7bebb7349e07ff7c2e2837f029edb93216e3b61470922e7b03"),
        Vector(
            length: 129,
            digest64:
                "f59711d44a031d5f97a9413c065d1e614c417ede998590325f49bad2fd444d3e4418be19aec4e11449ac1a57207898bc57d76a1bcf3566292c20c683a5c4648f",
            digest1: "c7", digest33: "3586bda6d7d2c9420f3c618bb67d33e8d352923d219c9cf020ec9e70e51cb58afc"),
        Vector(
            length: 300,
            digest64:
                "3a482b7748b0bdc43c3d00c080890c10e57a9aa5618f78b86067eb7eaae4942acd96d827accbc16958364ae5b0df6105bbd3b15445092eba1137b5f69c1070f1",
            digest1: "56", digest33: "9e2efee278424c94eafe8836a4aecf2d86628ea7438c6b7fa8d29d45a27a5f2f20"),
    ]

    @Test(arguments: vectors)
    func digestMatchesReference(_ vector: Vector) {
        let message = (0..<vector.length).map { UInt8($0 % 251) }
        #expect(Blake2b.hash(message, outputByteCount: 64) == hex(vector.digest64))
        #expect(Blake2b.hash(message, outputByteCount: 1) == hex(vector.digest1))
        #expect(Blake2b.hash(message, outputByteCount: 33) == hex(vector.digest33))
    }
}
