import Foundation
import HearthApp
import HearthCore
import Testing

@testable import HearthDatabase

/// The sync tree's event sequences of spec §17.13, driven directly: observers, local writes and
/// the server's data and answers, with no connection.
@Suite struct SyncTreeTests {
    /// One sync tree and what its observers received, as `path type key prev` lines.
    final class Harness {
        let database: Database
        var tree: SyncTree!
        var events: [String] = []
        private var nextID = 1
        private var nextHandle: DatabaseHandle = 1

        init() {
            let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
            options.databaseURL = "http://127.0.0.1:1?ns=unit"
            let name = "synctree-\(UUID().uuidString)"
            FirebaseApp.configure(name: name, options: options)
            database = Database.database(app: FirebaseApp.app(name: name)!)
            tree = SyncTree { [database] path, node, index in
                DataSnapshot(ref: DatabaseReference(database: database, path: path), node: node, index: index)
            }
        }

        private func path(_ string: String) -> DatabasePath {
            try! DatabasePath(writeLocation: string)
        }

        private func node(_ json: String) -> Node {
            try! NodeBuilder(timestamp: 0).build(try! JSONParser.parse(json), atDepth: 0, existing: .null)
        }

        private func run(_ body: (inout EventBatch) -> Void) {
            var batch = EventBatch()
            body(&batch)
            for delivery in batch.deliveries { delivery() }
        }

        /// Observes `types` at `location` with `params`; returns the listens that were sent.
        @discardableResult
        func observe(_ location: String, _ params: QueryParams = .all, _ types: [DataEventType] = DataEventType.allCases)
            -> [ListenSpec]
        {
            for type in types {
                let registration = EventRegistration(
                    handle: nextHandle, eventType: type,
                    onEvent: { [unowned self] snapshot, previous in
                        let label = "\(location) \(type)"
                        if type == .value {
                            events.append("\(label) \(JSONWriter.string(snapshot.node))")
                        } else {
                            events.append("\(label) \(snapshot.key) \(previous ?? "nil")")
                        }
                    }, onCancel: nil)
                nextHandle += 1
                run { tree.add(registration, for: QuerySpec(path: path(location), params: params), into: &$0) }
            }
            return tree.reconcileListens().listen.map(\.0)
        }

        func server(_ location: String, _ json: String, tag: Int? = nil) {
            run { tree.applyServerData(at: path(location), overwrites: [(.root, node(json))], isMerge: false, tag: tag, into: &$0) }
        }

        func serverMerge(_ location: String, _ children: [String: String], tag: Int? = nil) {
            let overwrites = children.sorted { $0.key < $1.key }.map { (path($0.key), node($0.value)) }
            run { tree.applyServerData(at: path(location), overwrites: overwrites, isMerge: true, tag: tag, into: &$0) }
        }

        func listenOK(_ spec: ListenSpec) {
            run { tree.listenCompleted(spec, into: &$0) }
        }

        @discardableResult
        func set(_ location: String, _ json: String) -> Int {
            defer { nextID += 1 }
            let write = UserWrite(id: nextID, path: path(location), change: .overwrite(node(json)), isVisible: true)
            run { tree.applyUserWrite(write, into: &$0) }
            return nextID
        }

        @discardableResult
        func update(_ location: String, _ children: [String: String]) -> Int {
            defer { nextID += 1 }
            let entries = children.sorted { $0.key < $1.key }.map { (path: path($0.key), node: node($0.value)) }
            run { tree.applyUserWrite(UserWrite(id: nextID, path: path(location), change: .merge(entries), isVisible: true), into: &$0) }
            return nextID
        }

        /// The server answered write `id` (accepted or refused: either way it leaves the tree).
        func answer(_ id: Int) {
            run { tree.removeUserWrite(id: id, into: &$0) }
        }

        /// The events since the last call.
        func take() -> [String] {
            defer { events = [] }
            return events
        }
    }

    static let byPriority = QueryParams()
    static func limitToLast(_ count: Int) -> QueryParams { QueryParams(limit: count, anchor: .last) }

    @Test func childSetUnderAnEmptyListenRaisesOnlyChildAdded() {
        let harness = Harness()
        harness.observe("a")
        #expect(harness.take() == [])
        harness.set("a/b", "4")
        #expect(harness.take() == ["a childAdded b nil"])

        let deep = Harness()
        deep.observe("a")
        deep.set("a/b/c", "3")
        #expect(deep.take() == [])
    }

    @Test func leafThenParentOverwriteWhileOffline() {
        let harness = Harness()
        harness.observe("a/aa", .all, [.value])
        harness.observe("a")
        harness.set("a/aa", "1")
        #expect(harness.take() == ["a/aa value 1", "a childAdded aa nil"])
        harness.set("a", #"{"aa":2}"#)
        #expect(harness.take() == ["a/aa value 2", "a childChanged aa nil", #"a value {"aa":2}"#])
    }

    @Test func revertedSetRestoresTheServerValue() {
        let harness = Harness()
        harness.observe("a/b", .all, [.value])
        harness.observe("a", .all, [.childAdded, .childChanged, .value])
        harness.server("a/b", "2")
        #expect(harness.take() == ["a/b value 2", "a childAdded b nil"])
        let write = harness.set("a/b", "3")
        #expect(harness.take() == ["a/b value 3", "a childChanged b nil"])
        harness.answer(write)
        #expect(harness.take() == ["a/b value 2", "a childChanged b nil"])
    }

    @Test func updateRaisesOneParentValue() {
        let harness = Harness()
        harness.observe("x/a", .all, [.value])
        harness.observe("x/d", .all, [.value])
        let listens = harness.observe("x", .all, [.childChanged, .value])
        harness.server("x", #"{"a":1,"b":2,"c":3,"d":4}"#)
        listens.forEach(harness.listenOK)
        _ = harness.take()
        harness.update("x", ["a": "4", "d": "1"])
        #expect(
            harness.take() == [
                "x/a value 4", "x/d value 1", "x childChanged a nil", "x childChanged d c",
                #"x value {"a":4,"b":2,"c":3,"d":1}"#,
            ])
    }

    @Test func removedAddedAndMovedComeInOrder() {
        let harness = Harness()
        harness.observe("a", .all, [.childRemoved, .childAdded, .childMoved])
        harness.set(
            "a",
            #"{"a":{".value":0,".priority":0},"b":{".value":1,".priority":1},"c":{".value":2,".priority":2},"d":{".value":3,".priority":3},"e":{".value":4,".priority":4},"f":{".value":5,".priority":5}}"#
        )
        _ = harness.take()
        harness.set(
            "a",
            #"{"a":{".value":0,".priority":5},"aa":{".value":0,".priority":0},"b":{".value":1,".priority":1},"bb":{".value":0,".priority":2},"d":{".value":3,".priority":3},"e":{".value":4,".priority":6}}"#
        )
        #expect(
            harness.take() == [
                "a childRemoved c nil", "a childRemoved f nil", "a childAdded aa nil", "a childAdded bb b",
                "a childMoved a d", "a childMoved e a",
            ])
    }

    @Test func deepSetPullsANewChildIntoALimitWindow() {
        let harness = Harness()
        harness.observe("a", Self.limitToLast(2), [.childAdded, .childRemoved, .value])
        harness.set("a", #"{"a":1,"b":{"bb":2},"c":3}"#)
        #expect(harness.take() == ["a childAdded b nil", "a childAdded c b", #"a value {"b":{"bb":2},"c":3}"#])
        harness.set("a/b/bb", "null")
        #expect(harness.take() == ["a childRemoved b nil", "a childAdded a nil", #"a value {"a":1,"c":3}"#])
    }

    @Test func taggedWindowShrinksThenRefillsFromTheServer() {
        let harness = Harness()
        let listens = harness.observe("a", Self.limitToLast(2), [.childAdded, .childRemoved, .value])
        let tag = try! #require(listens.first?.tag)
        let write = harness.set("a", #"{"key-1":1,"key-2":2,"key-3":3}"#)
        #expect(harness.take() == ["a childAdded key-2 nil", "a childAdded key-3 key-2", #"a value {"key-2":2,"key-3":3}"#])
        harness.server("a", #"{"key-2":2,"key-3":3}"#, tag: tag)
        harness.listenOK(listens[0])
        harness.answer(write)
        #expect(harness.take() == [])
        let removal = harness.set("a/key-2", "null")
        #expect(harness.take() == ["a childRemoved key-2 nil", #"a value {"key-3":3}"#])
        harness.serverMerge("a", ["key-1": "1", "key-2": "null"], tag: tag)
        harness.answer(removal)
        #expect(harness.take() == ["a childAdded key-1 nil", #"a value {"key-1":1,"key-3":3}"#])
    }

    @Test func limitUnderAParentIsRefilledFromTheParentsData() {
        let harness = Harness()
        let parent = harness.observe("a", .all, [.childAdded, .childChanged, .value])
        harness.observe("a/b", Self.limitToLast(1), [.childAdded, .childRemoved, .value])
        harness.server("a", #"{"a":1,"b":{"c":3,"d":4}}"#)
        parent.forEach(harness.listenOK)
        #expect(
            harness.take() == [
                "a/b childAdded d nil", #"a/b value {"d":4}"#, "a childAdded a nil", "a childAdded b a",
                #"a value {"a":1,"b":{"c":3,"d":4}}"#,
            ])
        harness.set("a/b/d", "null")
        #expect(
            harness.take() == [
                "a/b childRemoved d nil", "a/b childAdded c nil", #"a/b value {"c":3}"#, "a childChanged b a",
                #"a value {"a":1,"b":{"c":3}}"#,
            ])
    }

    @Test func acknowledgedWriteRaisesNoSecondValue() {
        let harness = Harness()
        let listens = harness.observe("a", Self.limitToLast(1), [.childAdded, .value])
        let write = harness.set("a", #"{"a":1,"b":2,"c":3}"#)
        #expect(harness.take() == ["a childAdded c nil", #"a value {"c":3}"#])
        harness.server("a", #"{"c":3}"#, tag: listens[0].tag)
        harness.listenOK(listens[0])
        harness.answer(write)
        #expect(harness.take() == [])
    }

    /// Spec §17.13.8: priority changes move children within a limit window.
    @Test func priorityChangesMoveChildrenInALimitWindow() {
        let harness = Harness()
        harness.observe("a", Self.limitToLast(2), [.childMoved])
        harness.set(
            "a",
            #"{"a":{".value":1,".priority":10},"b":{".value":2,".priority":20},"c":{".value":3,".priority":30},"d":{".value":4,".priority":40}}"#
        )
        #expect(harness.take() == [])
        harness.set("a/c/.priority", "50")
        #expect(harness.take() == ["a childMoved c d"])
        harness.set("a/c/.priority", "35")
        #expect(harness.take() == ["a childMoved c nil"])
        harness.set("a/b/.priority", "33")
        #expect(harness.take() == [])
    }

    @Test func listensAreDedupedUnderADefaultListen() {
        let harness = Harness()
        #expect(harness.observe("a/aa", .all, [.value]).map(\.path.description) == ["/a/aa"])
        #expect(harness.observe("a/bb", .all, [.value]).map(\.path.description) == ["/a/bb"])
        let root = harness.observe("", .all, [.value])
        #expect(root.map(\.path.description) == ["/"])
        #expect(Set(harness.tree.activeListens.keys.map(\.path.description)) == ["/"])
    }
}
