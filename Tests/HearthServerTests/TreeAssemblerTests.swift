import HearthCore
import Testing

@testable import HearthDatabaseServer

/// The tree rebuilt from its leaf rows, read in row-key order, is the tree they were written from,
/// priorities and Firebase's key order included.
@Suite struct TreeAssemblerTests {
    /// Rows as the store reads them back: `ORDER BY path`, byte order.
    private static func rows(of tree: Node) -> [(key: String, json: String)] {
        var rows: [(key: String, json: String)] = []
        LeafRows.forEachRow(of: tree, at: .root) { row in
            var key = JSONWriter()
            row.writeKey(to: &key)
            var value = JSONWriter()
            value.write(row.value)
            rows.append((String(decoding: key.bytes.dropFirst().dropLast(), as: UTF8.self), String(decoding: value.bytes, as: UTF8.self)))
        }
        return rows.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    private static func reassembled(_ tree: Node) throws -> Node {
        var assembler = TreeAssembler()
        for row in rows(of: tree) { try assembler.add(rowKey: row.key, leaf: LeafRows.leaf(JSONParser.parse(row.json), rowKey: row.key)) }
        return assembler.assemble()
    }

    @Test(arguments: [
        #"{"a":{"b":1,"b-c":{"d":true},"-x":"y",".priority":4},"9":1,"10":2,"-1":3,"z":{"q":{"r":"s"}}}"#,
        #"{"a":{"b":{".value":1,".priority":"p"},"b-c":2,"b!":3},".priority":1.5}"#,
        #"{".value":"root leaf",".priority":2}"#,
        #"{"n":{"-a":{"-b":{".value":1,".priority":1}},".priority":"obj"},"n-":1}"#,
        #""only""#,
    ])
    func treesComeBackWhole(json: String) throws {
        let tree = try NodeBuilder(timestamp: 0).build(JSONParser.parse(json), at: .root, existing: .null)
        let rebuilt = try Self.reassembled(tree)
        #expect(JSONWriter.string(rebuilt, .export) == JSONWriter.string(tree, .export))
    }

    @Test func randomTreesComeBackWhole() throws {
        var generator = SystemRandomNumberGenerator()
        let keys = ["a", "b", "b-c", "b!", "-x", "9", "10", "0", "-1", "a b", "ü", "z"]
        func randomNode(depth: Int) -> JSONValue {
            if depth == 0 || Int.random(in: 0..<3, using: &generator) == 0 {
                let value: JSONValue = Bool.random() ? .number(.int(Int64.random(in: -5...5))) : .string("v")
                return Bool.random()
                    ? value : .object([JSONMember(key: ".value", value: value), JSONMember(key: ".priority", value: .number(.int(1)))])
            }
            var members = Array(keys.shuffled().prefix(Int.random(in: 1...5))).map {
                JSONMember(key: $0, value: randomNode(depth: depth - 1))
            }
            if Bool.random() { members.append(JSONMember(key: ".priority", value: .string("p"))) }
            return .object(members)
        }
        for _ in 0..<200 {
            let tree = try NodeBuilder(timestamp: 0).build(randomNode(depth: 4), at: .root, existing: .null)
            #expect(JSONWriter.string(try Self.reassembled(tree), .export) == JSONWriter.string(tree, .export))
        }
    }

    @Test func rowsOutOfOrderAreRefused() throws {
        var assembler = TreeAssembler()
        try assembler.add(rowKey: "/b", leaf: .number(.int(1)))
        #expect(throws: PersistenceError.self) { try assembler.add(rowKey: "/a", leaf: .number(.int(1))) }
    }
}
