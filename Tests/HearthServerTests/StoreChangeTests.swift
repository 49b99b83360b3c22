import Foundation
import HearthCore
import Logging
import NIOCore
import SQLiteNIO
import Testing

@testable import HearthBackup

/// The change log of the SQLite stores: what the triggers record, replayed on a copy of the store
/// as it was before, gives the store as it is after, value for value and type for type.
struct StoreChangeTests {
    static let logger = Logger(label: "store-changes")

    static func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hearth-changes-\(UUID().uuidString).sqlite").path
    }

    static let schema = [
        "CREATE TABLE users (id TEXT PRIMARY KEY, record TEXT NOT NULL, score REAL, seen INTEGER) WITHOUT ROWID",
        "CREATE TABLE objects (bucket TEXT NOT NULL, name TEXT NOT NULL, blob TEXT NOT NULL, PRIMARY KEY (bucket, name)) WITHOUT ROWID",
        "CREATE TABLE admins (email TEXT PRIMARY KEY, salt BLOB NOT NULL)",
        "CREATE TABLE notes (body TEXT)",
    ]

    /// Every row of every table, as text that tells types apart.
    static func content(of connection: SQLiteConnection) async throws -> [String] {
        var rows: [String] = []
        for table in ["users", "objects", "admins", "notes"] {
            // A table without a declared key is keyed by its rowid, which the replay keeps too.
            let columns = table == "notes" ? "rowid AS rid, *" : "*"
            for row in try await connection.query("SELECT \(columns) FROM \(table) ORDER BY 1, 2") {
                rows.append("\(table): " + row.columns.map { "\($0.name)=\($0.data)" }.joined(separator: " "))
            }
        }
        return rows
    }

    @Test func replayingTheRecordedChangesOnTheStoreBeforeGivesTheStoreAfter() async throws {
        let before = Self.temporaryFile()
        let live = Self.temporaryFile()
        defer { for path in [before, live] { try? FileManager.default.removeItem(atPath: path) } }
        let connection = try await SQLiteConnection.open(storage: .file(path: live), logger: Self.logger)
        for statement in Self.schema { _ = try await connection.query(statement) }
        _ = try await connection.query("INSERT INTO users VALUES ('a', '{\"n\":1}', 1.5, 10)")
        try await StoreChangeLog.install(on: connection)
        _ = try await connection.query("VACUUM INTO ?", [.text(before)])
        let held = try await StoreChangeLog.lastNumbered(on: connection)
        // Every kind of write: inserts of each type, an update in place, an update of a key, a
        // replacement, deletions, a table without a declared key.
        let writes: [(String, [SQLiteData])] = [
            ("INSERT INTO users VALUES ('b', 'x', NULL, 9223372036854775807)", []),
            ("UPDATE users SET score = 2.25, record = 'it''s' WHERE id = 'a'", []),
            ("UPDATE users SET id = 'c' WHERE id = 'b'", []),
            ("INSERT OR REPLACE INTO users VALUES ('a', 'replaced', -0.5, -3)", []),
            ("INSERT INTO objects VALUES ('bk', 'files/a.bin', 'blob-1'), ('bk', 'files/b.bin', 'blob-2')", []),
            ("DELETE FROM objects WHERE name = 'files/a.bin'", []),
            ("INSERT INTO admins VALUES (?, ?)", [.text("ada@example.com"), .blob(ByteBuffer(bytes: [0, 1, 254, 255]))]),
            ("INSERT INTO notes VALUES ('first'), ('second'), (NULL)", []),
            ("DELETE FROM notes WHERE body = 'first'", []),
            ("UPDATE notes SET body = 'changed' WHERE body IS NULL", []),
        ]
        for (statement, bindings) in writes { _ = try await connection.query(statement, bindings) }
        let after = try await Self.content(of: connection)
        let changes = try await StoreChangeLog.changes(after: held, limit: 1000, on: connection)
        #expect(changes.map(\.seq) == Array((held + 1)...(held + Int64(changes.count))), "numbered in order, without gaps")
        try await connection.close()

        let copy = try await SQLiteConnection.open(storage: .file(path: before), logger: Self.logger)
        #expect(try await StoreChangeLog.lastNumbered(on: copy) == held, "a copy holds every change up to its number")
        try await StoreChangeLog.uninstall(on: copy)
        try await StoreChangeLog.transaction(on: copy) {
            for change in changes { try await StoreChangeReplay.apply(try JSONParser.parse(change.change), on: copy) }
        }
        #expect(try await Self.content(of: copy) == after)
        // Uninstalled, the copy records nothing more.
        _ = try await copy.query("INSERT INTO users VALUES ('z', 'quiet', NULL, NULL)")
        #expect(try await StoreChangeLog.changes(after: 0, limit: 10, on: copy).isEmpty)
        try await copy.close()
    }

    @Test func aBackupsCopyRecordsNothingAndAServerThatStopsRecordingLeavesAGap() async throws {
        let live = Self.temporaryFile()
        let copy = Self.temporaryFile()
        defer { for path in [live, copy] { try? FileManager.default.removeItem(atPath: path) } }
        let connection = try await SQLiteConnection.open(storage: .file(path: live), logger: Self.logger)
        _ = try await connection.query("CREATE TABLE uploads (id TEXT PRIMARY KEY, record TEXT) WITHOUT ROWID")
        try await StoreChangeLog.install(on: connection)
        _ = try await connection.query("INSERT INTO uploads VALUES ('u1', 'x'), ('u2', 'y')")
        // The backup's copy drops its uploads, as a backup does: numbering nothing.
        try await SQLiteSnapshot.copy(live, to: copy, logger: Self.logger)
        try await SQLiteSnapshot.edit(copy, logger: Self.logger) { copied in _ = try await copied.query("DELETE FROM uploads") }
        let copied = try await SQLiteConnection.open(storage: .file(path: copy), logger: Self.logger)
        #expect(try await StoreChangeLog.lastNumbered(on: copied) == 2)
        #expect(try await copied.query("SELECT count(*) AS n FROM hearth_changes").first?.column("n")?.integer == 2)
        try await copied.close()
        // A server that stops recording skips a number: the changes made meanwhile are in no
        // archive, and the numbering says so.
        try await StoreChangeLog.uninstall(on: connection)
        _ = try await connection.query("INSERT INTO uploads VALUES ('u3', 'unrecorded')")
        try await StoreChangeLog.install(on: connection)
        _ = try await connection.query("INSERT INTO uploads VALUES ('u4', 'z')")
        #expect(try await StoreChangeLog.changes(after: 0, limit: 10, on: connection).map(\.seq) == [4])
        try await connection.close()
    }

    @Test func onlyObjectsLeftWrittenNeedTheirBytes() throws {
        func entry(_ seq: Int64, _ json: String) throws -> StoreChangeArchive.Entry {
            StoreChangeArchive.Entry(seq: seq, time: seq, change: try JSONParser.parse(json))
        }
        let entries = [
            try entry(1, #"{"table":"objects","upsert":{"bucket":["text","b"],"name":["text","a"],"blob":["text","first"]}}"#),
            try entry(2, #"{"table":"objects","upsert":{"bucket":["text","b"],"name":["text","a"],"blob":["text","second"]}}"#),
            try entry(3, #"{"table":"objects","upsert":{"bucket":["text","b"],"name":["text","gone"],"blob":["text","third"]}}"#),
            try entry(4, #"{"table":"objects","delete":{"bucket":["text","b"],"name":["text","gone"]}}"#),
            try entry(5, #"{"table":"uploads","upsert":{"id":["text","u"],"blob":["text","not-an-object"]}}"#),
        ]
        #expect(StoreChangeReplay.liveBlobs(after: entries) == ["second"])
    }

    @Test func aMomentTheArchiveCannotReachIsRefused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-changes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let backup = folder + "/backup"
        try FileManager.default.createDirectory(atPath: backup + "/auth", withIntermediateDirectories: true)
        let store = try await SQLiteConnection.open(storage: .file(path: backup + "/auth/auth.sqlite"), logger: Self.logger)
        _ = try await store.query("CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID")
        try await StoreChangeLog.install(on: store)
        _ = try await store.query("INSERT INTO settings VALUES ('a', '1')")
        try await store.close()
        // The archive holds changes 3 and 4, not 2: the copy holds 1.
        let archive = StoreChangeArchive(directory: folder + "/archive")
        let segment = try archive.newSegment(of: "auth/auth.sqlite", from: 3)
        try segment.append([
            StoreChangeLog.Change(seq: 3, time: 1000, change: #"{"table":"settings","upsert":{"name":["text","c"],"value":["text","3"]}}"#),
            StoreChangeLog.Change(seq: 4, time: 2000, change: #"{"table":"settings","delete":{"name":["text","a"]}}"#),
        ])
        await #expect(throws: StoreChangeReplay.Failure.self) {
            try await StoreChangeReplay.plan(backup: backup, archive: archive.directory, until: 5000, logger: Self.logger)
        }
    }
}
