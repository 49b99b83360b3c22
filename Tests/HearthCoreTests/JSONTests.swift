import HearthCore
import Testing

@Suite struct JSONTests {
    @Test func integersStayExactAndDoublesStayDoubles() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .number(.int(Int64.max)))
        #expect(try JSONParser.parse("9223372036854775808") == .number(.double(9_223_372_036_854_775_808.0)))
        guard case .number(.double(let double)) = try JSONParser.parse("1.5e2") else {
            Issue.record("1.5e2 should parse as a double")
            return
        }
        #expect(double == 150)
    }

    @Test func stringEscapesAndSurrogatePairs() throws {
        #expect(try JSONParser.parse(#""a\"b\\c\n\u00e9\ud83d\udc35""#) == .string("a\"b\\c\né🐵"))
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "tru", "\"\u{01}\"", "{\"a\":1}x", "NaN", "1e400", "'a'", "{a:1}"])
    func malformedInputIsRefused(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    /// A denial's explanation shows the start of the data: rendering stops at the limit, so it
    /// costs the same for a node of any size.
    @Test func anAbbreviationRendersOnlyTheStartOfANode() {
        let huge = Node.build(children: (0..<200_000).map { (ChildKey("child\($0)"), Node.value(.string("value \($0)"))) })
        var writer = JSONWriter(byteLimit: 200)
        writer.write(huge, .plain)
        #expect(writer.isPastLimit)
        #expect(writer.bytes.count < 240, "rendering went on past the limit: \(writer.bytes.count) bytes")

        let abbreviated = JSONWriter.abbreviation(of: huge, maximumBytes: 200)
        #expect(abbreviated.hasPrefix(#"{"child0":"value 0","child1":"value 1","#))
        #expect(abbreviated.hasSuffix("…"))
        #expect(abbreviated.utf8.count == 200 + "…".utf8.count)

        let longString = Node.value(.string(String(repeating: "x", count: 10_000_000)))
        #expect(JSONWriter.abbreviation(of: longString, maximumBytes: 200) == "\"" + String(repeating: "x", count: 199) + "…")
        let small = Node.build(children: [(ChildKey("a"), .value(.number(.int(1))))])
        #expect(JSONWriter.abbreviation(of: small, maximumBytes: 200) == #"{"a":1}"#)
    }

    @Test func deepNestingIsRefusedWithoutCrashing() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
    }

    @Test func keyPositionsAreRecorded() throws {
        let json = try JSONParser.parse("{\n  \"a\": 1,\n  \"b$\": 2\n}")
        guard case .object(let members) = json else {
            Issue.record("expected an object")
            return
        }
        #expect(members[1].position == SourcePosition(line: 3, column: 3))
    }

    @Test func rulesSyntaxAllowsCommentsAndMultilineStrings() throws {
        let source = """
            {
              // a comment
              "rules": { /* block */ ".read": "auth != null &&
                 true" }
            }
            """
        let json = try JSONParser.parse(source, syntax: .rules)
        #expect(json["rules"]?[".read"] == .string("auth != null &&\n     true"))
        #expect(throws: JSONParseError.self) { try JSONParser.parse(source) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse("{\"a\":1,\"a\":2}", syntax: .rules) }
    }

    @Test func compactAndPrettyRendering() throws {
        let node = try NodeBuilder(timestamp: 0).build(JSONParser.parse("{\"b\":[1,2],\"a\":\"x\\\"\"}"), at: .root, existing: .null)
        #expect(JSONWriter.string(node, .plain) == "{\"a\":\"x\\\"\",\"b\":[1,2]}")
        let pretty = JSONWriter.string(node, JSONRendering(export: false, arrays: true, pretty: true))
        #expect(pretty == "{\n  \"a\" : \"x\\\"\",\n  \"b\" : [ 1, 2 ]\n}")
    }

    @Test func exportFormatCarriesPriorities() throws {
        let node = try NodeBuilder(timestamp: 0).build(
            JSONParser.parse("{\"a\":{\".value\":1,\".priority\":2},\".priority\":\"p\"}"), at: .root, existing: .null)
        #expect(JSONWriter.string(node, .export) == "{\"a\":{\".value\":1,\".priority\":2},\".priority\":\"p\"}")
        #expect(JSONWriter.string(node, .plain) == "{\"a\":1}")
    }

    @Test func arraysRenderOnlyWhenDenseEnough() throws {
        func render(_ json: String) throws -> String {
            JSONWriter.string(try NodeBuilder(timestamp: 0).build(JSONParser.parse(json), at: .root, existing: .null), .plain)
        }
        #expect(try render("{\"0\":\"a\",\"1\":\"b\"}") == "[\"a\",\"b\"]")
        #expect(try render("{\"0\":\"a\",\"5\":\"b\"}") == "{\"0\":\"a\",\"5\":\"b\"}")
        #expect(try render("{\"0\":\"a\",\"2\":\"b\"}") == "[\"a\",null,\"b\"]")
        #expect(try render("{\"00\":\"a\",\"1\":\"b\"}") == "{\"00\":\"a\",\"1\":\"b\"}")
        #expect(try render("[1,null,3]") == "[1,null,3]")
    }

    @Test func numbersRenderWithoutSpuriousFractions() {
        #expect(Number.double(2.0).description == "2")
        #expect(Number.double(1.5).description == "1.5")
        #expect(Number.int(-7).description == "-7")
        #expect(Number.double(9_223_372_036_854_775_808.0).description == "9.223372036854776e+18")
    }
}
