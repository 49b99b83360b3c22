import HearthCore
import Testing

@Suite struct QueryWindowTests {
    private func node(_ json: String) throws -> Node {
        try NodeBuilder(timestamp: 0).build(JSONParser.parse(json), at: .root, existing: .null)
    }

    private func keys(_ query: QueryParams, _ json: String, indexed: Bool = false) throws -> [String] {
        let data = try node(json)
        let index = indexed ? QueryWindow.build(query.index, children: data.children) : nil
        return QueryWindow.select(query, from: data, sortedIndex: index).map(\.key.string)
    }

    static let scores = "{\"a\":{\"v\":3},\"b\":{\"v\":1},\"c\":{\"v\":2},\"d\":{\"w\":1},\"e\":{\"v\":\"x\"}}"

    @Test(arguments: [false, true])
    func orderByChildWithLimitToLast(indexed: Bool) throws {
        let query = QueryParams(index: .child(try DatabasePath("v")), limit: 2, anchor: .last)
        #expect(try keys(query, Self.scores, indexed: indexed) == ["a", "e"])
        let numbersOnly = QueryParams(
            index: .child(try DatabasePath("v")), start: .init(value: .number(.int(1))), end: .init(value: .number(.int(3))),
            limit: 2, anchor: .last)
        #expect(try keys(numbersOnly, Self.scores, indexed: indexed) == ["c", "a"])
    }

    @Test func equalToNullMatchesChildrenMissingTheChild() throws {
        let query = QueryParams(index: .child(try DatabasePath("v")), start: .init(value: .null), end: .init(value: .null))
        #expect(try keys(query, Self.scores) == ["d"])
    }

    @Test func startAfterAndEndBeforeAreExclusive() throws {
        let values = "{\"a\":1,\"b\":2,\"c\":2,\"d\":3}"
        let after = QueryParams(index: .value, start: .init(value: .number(.int(2)), inclusive: false))
        #expect(try keys(after, values) == ["d"])
        let before = QueryParams(index: .value, end: .init(value: .number(.int(2)), inclusive: false))
        #expect(try keys(before, values) == ["a"])
        let afterKey = QueryParams(index: .value, start: .init(value: .number(.int(2)), key: .key(ChildKey("b")), inclusive: false))
        #expect(try keys(afterKey, values) == ["c", "d"])
        let jsStartAfter = QueryParams(index: .value, start: .init(value: .number(.int(1)), key: .maximum, inclusive: false))
        #expect(try keys(jsStartAfter, "{\"a\":1,\"b\":2}") == ["b"])
    }

    @Test func orderByKeyRanges() throws {
        let data = "{\"b\":1,\"a\":1,\"10\":1,\"2\":1,\"c\":1}"
        let query = QueryParams(index: .key, start: .init(value: .string("b")), limit: 1)
        #expect(try keys(query, data) == ["b"])
        let integers = QueryParams(index: .key, end: .init(value: .string("10")))
        #expect(try keys(integers, data) == ["2", "10"])
    }

    @Test func priorityOrderIsTheDefault() throws {
        let data = "{\"a\":{\".value\":1,\".priority\":3},\"b\":{\".value\":1,\".priority\":1},\"c\":1}"
        #expect(try keys(QueryParams(limit: 2, anchor: .last), data) == ["b", "a"])
        #expect(try keys(QueryParams(limit: 1), data) == ["c"])
    }

    @Test func aLeafSelectsNothing() throws {
        #expect(try keys(QueryParams(index: .key, limit: 1), "5").isEmpty)
    }
}
