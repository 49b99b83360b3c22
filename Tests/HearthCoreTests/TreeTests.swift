import HearthCore
import Testing

@Suite struct TreeTests {
    @Test func countingASubtreesNodesStopsAtTheBound() {
        // An object of 3 children of 2 leaves each: 1 + 3 + 6 = 10 nodes.
        let node = Node.build(
            children: (0..<3).map { index in
                (
                    ChildKey("c\(index)"),
                    Node.build(children: [(ChildKey("a"), .value(.bool(true))), (ChildKey("b"), .value(.bool(false)))])
                )
            })
        #expect(node.hasAtLeast(nodes: 10))
        #expect(!node.hasAtLeast(nodes: 11))
        #expect(Node.value(.bool(true)).hasAtLeast(nodes: 1))
        #expect(!Node.value(.bool(true)).hasAtLeast(nodes: 2))
        let huge = Node.build(children: (0..<100_000).map { (ChildKey("k\($0)"), Node.value(.number(.int(Int64($0))))) })
        #expect(huge.hasAtLeast(nodes: 10_000))
    }

    @Test func sortedTreeMatchesAReferenceUnderRandomOperations() {
        var generator = SystemRandomNumberGenerator()
        var tree = SortedTree<Int, Int>()
        var reference: [Int: Int] = [:]
        for step in 0..<5_000 {
            let key = Int.random(in: 0..<500, using: &generator)
            if Bool.random(using: &generator) {
                tree = tree.inserting(key, step)
                reference[key] = step
            } else {
                tree = tree.removing(key)
                reference[key] = nil
            }
        }
        #expect(tree.count == reference.count)
        #expect(tree.map(\.key) == reference.keys.sorted())
        #expect(tree.map(\.value) == reference.keys.sorted().map { reference[$0]! })
        for rank in stride(from: 0, to: tree.count, by: 7) {
            #expect(tree.entry(atRank: rank).key == reference.keys.sorted()[rank])
        }
        #expect(tree.rank { $0 < 250 } == reference.keys.filter { $0 < 250 }.count)
        #expect(Array(tree.entries(inRanks: 3..<9)).map(\.key) == Array(reference.keys.sorted()[3..<9]))
    }

    @Test func snapshotsNeverChangeUnderAReader() {
        let original = Node.build(children: (0..<1_000).map { (ChildKey("k\($0)"), Node.value(.number(.int(Int64($0))))) })
        let snapshot = original
        let updated = original.updatingChild(ChildKey("k5"), with: .value(.string("changed")))
        #expect(snapshot.child(ChildKey("k5")) == .value(.number(.int(5))))
        #expect(updated.child(ChildKey("k5")) == .value(.string("changed")))
        #expect(snapshot.children.count == 1_000)
    }

    @Test func writingBelowALeafReplacesItAndRemovingTheLastChildLeavesNull() throws {
        let leaf = Node.leaf(.string("x"), priority: .number(.int(1)))
        let path = try DatabasePath("a/b")
        let root = Node.null.updatingChild(at: try DatabasePath("a"), with: leaf).updatingChild(at: path, with: .value(.bool(true)))
        #expect(JSONWriter.string(root, .export) == "{\"a\":{\"b\":true}}")
        #expect(root.updatingChild(at: path, with: .null) == .null)
    }

    @Test func balancedAfterSequentialInsertsOfAMillionKeys() {
        var tree = SortedTree<Int, Bool>()
        for key in 0..<1_000_000 { tree = tree.inserting(key, true) }
        #expect(tree.count == 1_000_000)
        #expect(tree.entry(atRank: 765_432).key == 765_432)
    }
}
