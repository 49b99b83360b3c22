import HearthCore
import Testing

/// The hash vectors of wire protocol §8.2, which official SDKs check against the server.
@Suite struct NodeHashTests {
    static let vectors: [(json: String, hash: String)] = [
        ("4", "eVih19a6ZDz3NL32uVBtg9KSgQY="),
        ("4.5623", "vf1CL0tIRwXXunHcG/irRECk3lY="),
        ("\"hey guys\"", "CUNLXWpCVoJE6z7z1vE57lGaKAU="),
        ("true", "E5z61QM0lN/U2WsOnusszCTkR8M="),
        ("{\"intNode\":4,\"doubleNode\":4.5623,\"stringNode\":\"hey guys\",\"boolNode\":true}", "6Mc4jFmNdrLVIlJJjz2/MakTK9I="),
        ("{\"root\":{\"c\":{\".value\":99,\".priority\":\"abc\"},\".priority\":\"def\"}}", "Fm6tzN4CVEu5WxFDZUdTtqbTVaA="),
        ("{\"root\":{\"c\":{\".value\":99,\".priority\":42},\".priority\":3.14}}", "B15QCqrzCxrI5zz1y00arWqFRFg="),
        ("-1.7976931348623157e308", "7HxgOBDEC92uQwhCuuvKA2rbXDA="),
        ("\"unicode ✔ 🐵 🌴 x͢\"", "JoKoFUnbmg3/DlY70KaDWslfYPk="),
        (
            "{\".priority\":\"✔\",\"a\":-1.7976931348623157e308,\"b\":1.7976931348623157e308,\"c\":\"unicode ✔ 🐵 🌴 x͢\",\"d\":3.1415926535897932384626433832795,\"e\":{\".value\":12345678901234568,\".priority\":\"🐵\"},\"✔\":\"foo\"}",
            "CyC0OU8GSkOAKnsPjheWtWC0Yxo="
        ),
        ("null", ""),
        ("false", "aSSNoqcS4oQwJ2xxH20rvpp3zP0="),
        ("500", "Ajg9bohDwTVmqR14o1bVJnneryM="),
        ("\"Hello World\"", "B8HWXc7zXMjrsnJxPRj7wrNGqt4="),
        ("{\"foo\":\"bar\"}", "XnLeTeWQmzTHImTbSMDLg/qMrKY="),
        ("{\"z\":1,\"a\":\"2\",\"b\":\"true\",\"c\":false}", "8qk5vmuZGXWJx+77SGwjYRM0yPA="),
        ("{\".priority\":200,\".value\":\"primitive\"}", "R9u8hs9fhRzuQ2M/3BQ0uhxz5ys="),
        ("{\".priority\":\"high\",\".value\":42}", "d/2FMFWchvDsa06RLXZhzvM9aQc="),
        ("{\".priority\":128.256,\"someKey\":\"value\"}", "WYR8kBGna+a7E5x75zvhPhzACOQ="),
        ("{\".priority\":\"high\",\"someKey\":\"value\"}", "/KquMIGoCuKO/ipoLoQzqnU0BcI="),
        ("1", "YPVfR2bXt/lcDjiQZ8pOkAd3qkQ="),
        ("42", "bQ5XV5L9riGZgerGMb/8Z87RxeI="),
        ("{\"x\":1}", "LkoDN24bwRWG2p4jGZoe8M/Acf8="),
        ("{\".priority\":1,\".value\":\"a\"}", "Mh5R9Rxk6SEP+0a5KglrpE+fD44="),
        ("{\"a\":{\".priority\":2,\".value\":\"x\"},\"b\":{\".priority\":1,\".value\":\"y\"}}", "0ccTHWBqJF0jOexVF/+YZ5bwpTU="),
        ("{\"2\":\"x\",\"10\":\"y\",\"a\":\"z\"}", "sWFuU8H4qfDL+vPX/7hPdu5wXso="),
        ("{\"1\":\"a\",\"01\":\"b\",\"x\":\"c\"}", "d43pj89f5XQWhwOqpG9V5HNbC2s="),
        ("{\"a\":null,\"b\":true}", "MeYD2XWoKyq32AwVr6A6bcDDJz4="),
        ("{\"x\":{}}", ""),
        ("\"héllo\"", "efk23CQ3RaejCSSm7FPChxRZw0k="),
        ("1.5", "4MftviR9Z/2MQCMkjh2RNbvlLJc="),
        ("-0.5", "/r6we9NY8SVfOWrAH6omHfBJtYA="),
    ]

    @Test(arguments: vectors.indices)
    func hashMatchesFirebase(_ index: Int) throws {
        let vector = Self.vectors[index]
        let node = try NodeBuilder(timestamp: 0).build(JSONParser.parse(vector.json), at: .root, existing: .null)
        #expect(NodeHash.hash(node) == vector.hash, "hash of \(vector.json)")
    }

    @Test func integralDoublesHashLikeIntegers() throws {
        let integer = Node.value(.number(.int(500)))
        let double = Node.value(.number(.double(500.0)))
        #expect(NodeHash.hash(integer) == NodeHash.hash(double))
    }
}
