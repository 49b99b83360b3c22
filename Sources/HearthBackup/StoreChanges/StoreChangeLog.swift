import SQLiteNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The changes of a SQLite store (accounts, Storage's metadata, the console's administrators),
/// recorded as they commit, for restores to a point in time: triggers on every table append each
/// row written, and the key of each row deleted, to `hearth_changes` in the writing transaction,
/// numbered in commit order (`seq`, never reused) with the time in milliseconds. The archiver
/// (``StoreChangeArchiver``) copies them into the log archive and deletes them; a restore
/// (``StoreChangeReplay``) applies those after the backup's copy up to a moment.
///
/// A change is one JSON object: `{"table": T, "upsert": {column: [type, value]…}}` or
/// `{"table": T, "delete": {key column: [type, value]…}}`, each value with its SQLite type
/// (`integer`, `real`, `text`, `blob` as hexadecimal, `null`), so that a replay writes exactly
/// what was written.
enum StoreChangeLog {
    static let table = "hearth_changes"
    private static let triggerPrefix = "hearth_change_"

    /// Records every change from now on: creates the table if needed and (re)creates the triggers
    /// of every table, in one transaction.
    static func install(on connection: SQLiteConnection) async throws {
        try await transaction(on: connection) {
            try await dropTriggers(on: connection)
            _ = try await connection.query(
                "CREATE TABLE IF NOT EXISTS \(table) (seq INTEGER PRIMARY KEY AUTOINCREMENT, time INTEGER NOT NULL, change TEXT NOT NULL)")
            for name in try await tables(on: connection) {
                for statement in triggers(for: name, columns: try await columns(of: name, on: connection)) {
                    _ = try await connection.query(statement)
                }
            }
        }
    }

    /// Records nothing from now on: drops the triggers and the changes not archived. The table
    /// stays, so that the numbering never starts again, and skips a number: the changes made
    /// until recording begins again are in no archive, and a restore must not take a store across
    /// them (it refuses a gap).
    static func uninstall(on connection: SQLiteConnection) async throws {
        try await transaction(on: connection) {
            let wasRecording = try await hasTriggers(on: connection)
            try await dropTriggers(on: connection)
            guard try await hasTable(on: connection) else { return }
            _ = try await connection.query("DELETE FROM \(table)")
            if wasRecording {
                _ = try await connection.query("UPDATE sqlite_sequence SET seq = seq + 1 WHERE name = ?", [.text(table)])
            }
        }
    }

    /// Whether the store has the changes' table: it recorded changes once.
    static func hasTable(on connection: SQLiteConnection) async throws -> Bool {
        try await !connection.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table)]).isEmpty
    }

    private static func hasTriggers(on connection: SQLiteConnection) async throws -> Bool {
        try await !triggerNames(on: connection).isEmpty
    }

    /// The last change numbered in the store, archived or not (0 before the first): a copy of the
    /// store holds every change up to it.
    static func lastNumbered(on connection: SQLiteConnection) async throws -> Int64 {
        guard try await !connection.query("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_sequence'").isEmpty else { return 0 }
        let rows = try await connection.query("SELECT seq FROM sqlite_sequence WHERE name = ?", [.text(table)])
        return Int64(rows.first?.column("seq")?.integer ?? 0)
    }

    /// One recorded change.
    struct Change: Sendable, Equatable {
        let seq: Int64
        let time: Int64
        /// The change's JSON text.
        let change: String
    }

    /// Up to `limit` changes after `seq`, oldest first.
    static func changes(after seq: Int64, limit: Int, on connection: SQLiteConnection) async throws -> [Change] {
        try await connection.query(
            "SELECT seq, time, change FROM \(table) WHERE seq > ? ORDER BY seq LIMIT ?", [.integer(Int(seq)), .integer(limit)]
        ).compactMap { row in
            guard let seq = row.column("seq")?.integer, let time = row.column("time")?.integer, let change = row.column("change")?.string
            else { return nil }
            return Change(seq: Int64(seq), time: Int64(time), change: change)
        }
    }

    /// Deletes the changes up to `seq`, archived.
    static func forget(through seq: Int64, on connection: SQLiteConnection) async throws {
        _ = try await connection.query("DELETE FROM \(table) WHERE seq <= ?", [.integer(Int(seq))])
    }

    // MARK: Triggers

    /// The tables whose changes are recorded: every table but SQLite's and the changes'.
    private static func tables(on connection: SQLiteConnection) async throws -> [String] {
        try await connection.query(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> ? ORDER BY name",
            [.text(table)]
        ).compactMap { $0.column("name")?.string }
    }

    /// A table's columns, and which make its key (`rowid` when it declares none).
    struct Columns: Equatable {
        let all: [String]
        let key: [String]
    }

    private static func columns(of table: String, on connection: SQLiteConnection) async throws -> Columns {
        let rows = try await connection.query("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
        let all = rows.compactMap { $0.column("name")?.string }
        let key = rows.compactMap { row -> (Int, String)? in
            guard let pk = row.column("pk")?.integer, pk > 0, let name = row.column("name")?.string else { return nil }
            return (pk, name)
        }.sorted { $0.0 < $1.0 }.map(\.1)
        return key.isEmpty ? Columns(all: ["rowid"] + all, key: ["rowid"]) : Columns(all: all, key: key)
    }

    /// Drops the triggers, leaving the changes recorded: a copy of the store (a backup's) edited
    /// afterwards records nothing and numbers nothing.
    static func dropTriggers(on connection: SQLiteConnection) async throws {
        for name in try await triggerNames(on: connection) { _ = try await connection.query("DROP TRIGGER IF EXISTS \(identifier(name))") }
    }

    private static func triggerNames(on connection: SQLiteConnection) async throws -> [String] {
        try await connection.query(
            "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE ? ESCAPE '\\'", [.text("hearth\\_change\\_%")]
        ).compactMap { $0.column("name")?.string }
    }

    /// The three triggers of `table`. An update that changes the key records the old key's
    /// deletion first.
    static func triggers(for table: String, columns: Columns) -> [String] {
        let now = "CAST(unixepoch('subsec') * 1000 AS INTEGER)"
        let record = { (kind: String, row: String, names: [String]) in
            "json_object('table', \(literal(table)), '\(kind)', json_object(\(names.map { "\(literal($0)), \(value("\(row).\(identifier($0))"))" }.joined(separator: ", "))))"
        }
        let keyChanged = columns.key.map { "OLD.\(identifier($0)) IS NOT NEW.\(identifier($0))" }.joined(separator: " OR ")
        let name = { (event: String) in identifier(triggerPrefix + table + "_" + event) }
        return [
            """
            CREATE TRIGGER \(name("insert")) AFTER INSERT ON \(identifier(table)) BEGIN
              INSERT INTO \(Self.table) (time, change) VALUES (\(now), \(record("upsert", "NEW", columns.all)));
            END
            """,
            """
            CREATE TRIGGER \(name("update")) AFTER UPDATE ON \(identifier(table)) BEGIN
              INSERT INTO \(Self.table) (time, change) SELECT \(now), \(record("delete", "OLD", columns.key)) WHERE \(keyChanged);
              INSERT INTO \(Self.table) (time, change) VALUES (\(now), \(record("upsert", "NEW", columns.all)));
            END
            """,
            """
            CREATE TRIGGER \(name("delete")) AFTER DELETE ON \(identifier(table)) BEGIN
              INSERT INTO \(Self.table) (time, change) VALUES (\(now), \(record("delete", "OLD", columns.key)));
            END
            """,
        ]
    }

    /// The typed JSON form of the value `reference` names.
    private static func value(_ reference: String) -> String {
        "json_array(typeof(\(reference)), CASE typeof(\(reference)) WHEN 'blob' THEN hex(\(reference)) ELSE \(reference) END)"
    }

    static func identifier(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }

    static func literal(_ text: String) -> String {
        "'" + text.replacing("'", with: "''") + "'"
    }

    /// Runs `body` in one immediate transaction.
    static func transaction(on connection: SQLiteConnection, _ body: () async throws -> Void) async throws {
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            try await body()
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }
}
