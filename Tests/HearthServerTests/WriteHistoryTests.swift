import Foundation
import HearthCore
import HearthEdge
import Logging
import SQLiteNIO
import Testing

@testable import HearthDatabaseServer

/// The write log's history: who changed a location and how, and the location as it was at any
/// time the log still covers — across compactions and restarts.
@Suite struct WriteHistoryTests {
    private let logger = Logger(label: "test")

    private func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hearth-history-\(UUID().uuidString)").path
    }

    /// Opens namespace `ns` under `directory` with compactions every three writes, so that the
    /// history is read from folded rows too.
    private func open(_ directory: String, keptWrites: Int = 100_000) async throws -> TestNamespace {
        let options = NamespaceStoreOptions(journalLimits: JournalLedger(maximumEntries: 3), keptWrites: keptWrites)
        return try await TestNamespace.open(directory, options: options, logger: logger)
    }

    /// A time strictly between the writes before and after it.
    private func pause() async throws -> Int64 {
        try await Task.sleep(for: .milliseconds(3))
        let time = NamespaceEngine.now()
        try await Task.sleep(for: .milliseconds(3))
        return time
    }

    private func json(_ node: Node) -> String { JSONWriter.string(node, .export) }

    @Test func everyTimeIsRestoredExactlyAfterARestart() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writes: [(String, String)] = [
            ("a", #"{"b":1,"c":{"d":2}}"#), ("a/b", "5"), ("a/.priority", "3"), ("e", #"{"f":[1,2]}"#), ("a/c", "null"),
            ("", #"{"a":{"x":1},"k":"v"}"#), ("a/x/y", #"{".value":"z",".priority":1}"#), ("k", "null"),
            // Emptied, the node goes with its priority; written below, a leaf gives way.
            ("m", #"{"n":{"o":1},".priority":4}"#), ("m/n/o", "null"), ("a/x/y/deep", "1"),
        ]
        var opened = try await open(directory)
        var engine = opened.engine
        var snapshots: [(time: Int64, tree: Node)] = [(try await pause(), .null)]
        for (path, text) in writes {
            _ = try await engine.set(DatabasePath(writeLocation: path), JSONParser.parse(text), as: .admin)
            snapshots.append((try await pause(), await engine.read()))
        }
        for reopen in [false, true] {
            if reopen {
                await opened.close()
                opened = try await open(directory)
                engine = opened.engine
            }
            for (time, tree) in snapshots {
                let state = json(try await engine.state(at: .root, as: .time(time)))
                #expect(state == json(tree), "at \(time), reopened: \(reopen): \(state) vs \(json(tree))")
                let a = try DatabasePath("a")
                #expect(json(try await engine.state(at: a, as: .time(time))) == json(tree.child(at: a)))
            }
        }
        await opened.close()
    }

    /// Writes that replace more than their own location — a root that held a leaf, an object
    /// emptied and filled again by one update, losing its priority — are taken back exactly, by
    /// time and to just before each write.
    @Test func writesThatReplaceAnAncestorAreTakenBackExactly() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let opened = try await open(directory)
        let engine = opened.engine
        var snapshots: [(time: Int64, tree: Node)] = []
        func record() async throws { snapshots.append((try await pause(), await engine.read())) }
        try await record()
        _ = try await engine.set(.root, .string("hello"), as: .admin)
        try await record()
        _ = try await engine.set(DatabasePath("a"), .number(.int(1)), as: .admin)
        try await record()
        _ = try await engine.set(DatabasePath("p"), JSONParser.parse(#"{"b":1,".priority":5}"#), as: .admin)
        try await record()
        try await engine.update(
            DatabasePath("p"), [(DatabasePath("b"), JSONValue.null), (DatabasePath("c"), JSONValue.number(.int(2)))], as: .admin)
        try await record()
        _ = try await engine.set(DatabasePath(writeLocation: ".priority"), .number(.int(9)), as: .admin)
        try await record()
        _ = try await engine.set(DatabasePath("a"), JSONValue.null, as: .admin)
        try await record()
        for (time, tree) in snapshots {
            #expect(json(try await engine.state(at: .root, as: .time(time))) == json(tree), "at \(time)")
        }
        // Write n (from 1) came after snapshot n - 1.
        for sequence in 1..<snapshots.count {
            let before = try await engine.state(at: .root, as: .beforeWrite(Int64(sequence)))
            #expect(json(before) == json(snapshots[sequence - 1].tree), "before write \(sequence)")
        }
        await #expect(throws: DatabaseError.historyNotKept("There is no write 99 in the history.")) {
            try await engine.state(at: .root, as: .beforeWrite(99))
        }
        await opened.close()
    }

    @Test func theLogKeepsNoMoreThanItsBounds() {
        var retention = LogRetention(keptWrites: 100, keptBytes: 15)
        for sequence in 1...3 { retention.appended(Int64(sequence), bytes: 10) }
        // Deleting rows 1 and 2 leaves 10 bytes: the fewest rows that leave at most 15.
        #expect(retention.deletionBound(foldedThrough: 3) == 2)
        #expect(retention.deletionBound(foldedThrough: 1) == 1)
        retention.deleted(through: 2)
        #expect(retention.deletionBound(foldedThrough: 3) <= 2)
        var byCount = LogRetention(keptWrites: 2, keptBytes: 1 << 20)
        for sequence in 1...5 { byCount.appended(Int64(sequence), bytes: 10) }
        #expect(byCount.deletionBound(foldedThrough: 5) == 3)
        #expect(byCount.deletionBound(foldedThrough: 2) == 2)
    }

    @Test func aLocationsHistoryNamesEveryWriteAtAboveAndBelowIt() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let opened = try await open(directory)
        let engine = opened.engine
        let user = Caller.client(
            auth: .object([JSONMember(key: "uid", value: .string("ada")), JSONMember(key: "provider", value: .string("password"))]))
        _ = try await engine.set(DatabasePath("a"), JSONParser.parse(#"{"b":1,"c":2}"#), as: .admin)
        try await WriteTransport.$current.withValue(.rest) {
            try await engine.update(DatabasePath("a"), [(DatabasePath("b"), .number(.int(7))), (DatabasePath("z"), .bool(true))], as: user)
        }
        _ = try await engine.set(DatabasePath("elsewhere"), .number(.int(1)), as: .admin)
        _ = try await engine.set(.root, JSONParser.parse(#"{"a":{"b":7,"c":2,"z":true},"elsewhere":1}"#), as: .admin)
        _ = try await engine.set(.root, JSONParser.parse(#"{"a":{"b":8},"elsewhere":1}"#), as: .admin)

        let page = try await engine.history(at: DatabasePath("a/b"))
        // The root write that left a/b as it was is not part of its history.
        #expect(page.entries.map(\.sequence) == [5, 2, 1])
        let expected = WriteHistory.Change(path: try DatabasePath("a/b"), before: .value(.number(.int(7))), after: .value(.number(.int(8))))
        #expect(page.entries[0].changes == [expected])
        #expect(
            page.entries[1].author
                == .object([JSONMember(key: "uid", value: .string("ada")), JSONMember(key: "provider", value: .string("password"))]))
        #expect(page.entries[1].transport == "rest")
        #expect(page.entries[2].author == .object([JSONMember(key: "admin", value: .bool(true))]))
        #expect(page.entries[2].transport == "server")
        #expect(page.next == nil && page.begins == 0)

        let ofA = try await engine.history(at: DatabasePath("a"), limit: 2)
        #expect(ofA.entries.map(\.sequence) == [5, 2])
        #expect(ofA.entries[1].changes.map(\.path.description) == ["/a/b", "/a/z"])
        #expect(ofA.next == 2)
        let rest = try await engine.history(at: DatabasePath("a"), before: ofA.next)
        #expect(rest.entries.map(\.sequence) == [1])
        await #expect(throws: DatabaseError.invalidPath) { try await engine.history(at: DatabasePath(writeLocation: "a/.priority")) }
        await opened.close()
    }

    @Test func aRestoreIsOneWriteOfTheOldNodeAndJoinsTheHistory() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let opened = try await open(directory)
        let engine = opened.engine
        _ = try await engine.set(DatabasePath("list"), JSONParser.parse(#"{"x":{"n":1},"y":{"n":2}}"#), as: .admin)
        let time = try await pause()
        _ = try await engine.set(DatabasePath("list/x"), JSONValue.null, as: .admin)
        _ = try await engine.set(DatabasePath("list/z"), JSONParser.parse(#"{"n":3}"#), as: .admin)
        let restored = try await engine.restore(DatabasePath("list"), as: .time(time), by: .admin)
        #expect(json(restored) == #"{"x":{"n":1},"y":{"n":2}}"#)
        #expect(json(await engine.read(try DatabasePath("list"))) == json(restored))
        let newest = try await engine.history(at: DatabasePath("list"), limit: 1).entries[0]
        let replaced = newest.changes.first?.before.map { json($0) }
        #expect(replaced == #"{"y":{"n":2},"z":{"n":3}}"#)
        await opened.close()
    }

    @Test func historyEndsWhereTheLogStopsKeepingWrites() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let opened = try await open(directory, keptWrites: 4)
        let engine = opened.engine
        let early = try await pause()
        for round in 0..<20 { _ = try await engine.set(DatabasePath("n"), .number(.int(Int64(round))), as: .admin) }
        let late = try await pause()
        _ = try await engine.set(DatabasePath("n"), .number(.int(99)), as: .admin)
        // Wait for the compaction that deletes what the history no longer keeps (it runs beside
        // the commits, later on a busy machine).
        try await opened.store.flush()
        var page = try await engine.history(at: DatabasePath("n"))
        let deadline = ContinuousClock.now + .seconds(30)
        while page.entries.count > 7 || opened.store.isCompacting, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            page = try await engine.history(at: DatabasePath("n"))
        }
        #expect(page.begins > early && page.entries.count <= 7 && page.entries.count >= 4)
        #expect(json(try await engine.state(at: DatabasePath("n"), as: .time(late))) == "19")
        await #expect {
            _ = try await engine.state(at: DatabasePath("n"), as: .time(early))
        } throws: { error in
            guard case .historyNotKept(let message) = error as? DatabaseError else { return false }
            return message.hasPrefix("History begins at ")
        }
        await opened.close()
    }

    @Test func aReplacedNodeTooLargeToKeepEndsTheHistoryBelowIt() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let opened = try await open(directory)
        let engine = opened.engine
        let big = JSONValue.object((0..<NamespaceEngine.largeSubtree).map { JSONMember(key: "k\($0)", value: .number(.int(Int64($0)))) })
        _ = try await engine.set(DatabasePath("big"), big, as: .admin)
        _ = try await engine.set(DatabasePath("other"), .number(.int(1)), as: .admin)
        let time = try await pause()
        _ = try await engine.set(DatabasePath("big"), .string("small now"), as: .admin)
        _ = try await engine.set(DatabasePath("other"), .number(.int(2)), as: .admin)
        #expect(json(try await engine.state(at: DatabasePath("other"), as: .time(time))) == "1")
        await #expect {
            _ = try await engine.state(at: DatabasePath("big/k1"), as: .time(time))
        } throws: { error in
            guard case .historyNotKept(let message) = error as? DatabaseError else { return false }
            return message.contains("too large to keep")
        }
        let newest = try await engine.history(at: DatabasePath("big"), limit: 1).entries[0]
        #expect(newest.changes[0].before == nil && newest.changes[0].after == .value(.string("small now")))
        await opened.close()
    }

    /// A store written before the write log keeps its journal rows: they are replayed and
    /// folded, and the table goes.
    @Test func aJournalOfAnOlderStoreIsReplayedAndMigrated() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = NamespaceFiles(dataDirectory: directory)
        try files.createDirectory()
        try await NamespaceStore.create(path: files.path(of: "ns"), logger: logger)
        let connection = try await SQLiteConnection.open(storage: .file(path: files.path(of: "ns")), logger: logger)
        _ = try await connection.query("CREATE TABLE journal (sequence INTEGER PRIMARY KEY, entry TEXT NOT NULL)")
        _ = try await connection.query(#"INSERT INTO journal VALUES (1, '[["/a",{"b":1}],["/c","d"]]'), (2, '[["/a/b",2]]')"#)
        try await connection.close()
        let opened = try await open(directory)
        let engine = opened.engine
        #expect(json(await engine.read()) == #"{"a":{"b":2},"c":"d"}"#)
        // History of data stored before the log begins when the log did.
        #expect(try await engine.history(at: .root).begins > 0)
        await opened.close()
        let reopened = try await open(directory)
        #expect(json(await reopened.engine.read()) == #"{"a":{"b":2},"c":"d"}"#)
        await reopened.close()
    }
}
