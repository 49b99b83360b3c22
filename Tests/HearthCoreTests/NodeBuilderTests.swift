import HearthCore
import Testing

@Suite struct NodeBuilderTests {
    private func build(_ json: String, at path: DatabasePath = .root, existing: Node = .null, timestamp: Int64 = 1_000) throws -> Node {
        try NodeBuilder(timestamp: timestamp).build(JSONParser.parse(json), at: path, existing: existing)
    }

    @Test func emptyObjectsAndNullChildrenVanish() throws {
        #expect(try build("{}") == .null)
        #expect(try build("{\"a\":null,\"b\":{}}") == .null)
        #expect(try build("{\"a\":null,\"b\":1}") == .build(children: [(ChildKey("b"), .value(.number(.int(1))))]))
    }

    @Test func timestampResolvesToTheWriteTime() throws {
        #expect(try build("{\".sv\":\"timestamp\"}", timestamp: 1_700_000_000_123) == .value(.number(.int(1_700_000_000_123))))
    }

    @Test func incrementFollowsFirebaseSemantics() throws {
        let increment = "{\".sv\":{\"increment\":5}}"
        #expect(try build(increment, existing: .value(.string("abc"))) == .value(.number(.int(5))))
        #expect(try build(increment, existing: .value(.number(.int(7)))) == .value(.number(.int(12))))
        #expect(try build(increment, existing: .null) == .value(.number(.int(5))))
        #expect(try build("{\".sv\":{\"increment\":1}}", existing: .value(.number(.double(1.5)))) == .value(.number(.double(2.5))))
        let overflow = try build("{\".sv\":{\"increment\":1}}", existing: .value(.number(.int(Int64.max))))
        #expect(overflow == .value(.number(.double(9_223_372_036_854_775_808.0))))
        guard case .leaf(.number(.double), _) = overflow else {
            Issue.record("an overflowing increment must become a double")
            return
        }
    }

    @Test func nestedIncrementsResolveAgainstTheirOwnLocation() throws {
        let existing = try build("{\"a\":1,\"b\":\"x\"}")
        let node = try build("{\"a\":{\".sv\":{\"increment\":2}},\"b\":{\".sv\":{\"increment\":2}}}", existing: existing)
        #expect(JSONWriter.string(node) == "{\"a\":3,\"b\":2}")
    }

    @Test(arguments: [
        "{\".sv\":\"now\"}", "{\".sv\":{\"increment\":\"1\"}}", "{\".sv\":{\"decrement\":1}}", "{\".sv\":\"timestamp\",\"x\":1}",
    ])
    func unknownServerValuesAreRefused(_ json: String) {
        #expect(throws: DataError.invalidServerValue) { try build(json) }
    }

    @Test func invalidKeysReportTheirPosition() {
        #expect(throws: DataError.invalidKey("a.b", SourcePosition(line: 1, column: 2))) { try build("{\"a.b\":1}") }
        #expect(throws: DataError.invalidKey("", SourcePosition(line: 2, column: 1))) { try build("{\n\"\":1}") }
        #expect(throws: DataError.invalidKey(".foo", SourcePosition(line: 1, column: 2))) { try build("{\".foo\":1}") }
        for character in ["$", "#", "[", "]", "/", "\u{7F}", "\\u0001"] {
            #expect(throws: DataError.self) { try build("{\"a\(character)\":1}") }
        }
    }

    @Test func keysLongerThan768BytesAreRefused() throws {
        let longest = String(repeating: "k", count: 768)
        #expect(try build("{\"\(longest)\":1}") != .null)
        #expect(throws: DataError.self) { try build("{\"\(longest)k\":1}") }
    }

    @Test func depthCountsThePathAndTheData() throws {
        let path = try DatabasePath((1...30).map { "p\($0)" }.joined(separator: "/"))
        #expect(try build("{\"a\":{\"b\":1}}", at: path) != .null)
        #expect(throws: DataError.tooDeep) { try build("{\"a\":{\"b\":{\"c\":1}}}", at: path) }
    }

    @Test func priorityAndValueWrappers() throws {
        #expect(try build("{\".value\":\"x\",\".priority\":3}") == .leaf(.string("x"), priority: .number(.int(3))))
        #expect(throws: DataError.invalidValueWrapper) { try build("{\".value\":1,\"a\":2}") }
        #expect(throws: DataError.invalidPriority) { try build("{\"a\":1,\".priority\":true}") }
        #expect(try build("{\"a\":1,\".priority\":null}") == .build(children: [(ChildKey("a"), .value(.number(.int(1))))]))
    }

    @Test func arraysBecomeIntegerKeyedObjects() throws {
        #expect(JSONWriter.string(try build("[\"a\",null,\"c\"]"), .export) == "{\"0\":\"a\",\"2\":\"c\"}")
    }

    @Test func pathsParseLenientlyAndRefuseBadKeys() throws {
        #expect(try DatabasePath("a//b/").description == "/a/b")
        #expect(try DatabasePath("/").isRoot)
        #expect(throws: PathError.invalidKey("a.b")) { try DatabasePath("x/a.b") }
        #expect(throws: PathError.tooDeep) { try DatabasePath((0...32).map(String.init).joined(separator: "/")) }
    }
}
