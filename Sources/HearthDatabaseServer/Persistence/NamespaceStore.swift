import HearthCore
import HearthSupport
import Logging
import SQLiteNIO
import Synchronization

/// The durable copy of one namespace: a SQLite database in WAL mode with `synchronous=FULL`, so
/// a commit returns only once it is on disk.
///
/// The tree is kept as leaf rows (``LeafRows``) plus a journal of recent commits (``Journal``).
/// A commit appends one journal row; once the journal passes its limits (``JournalLedger``),
/// the commit instead rewrites the leaf rows of every location the journal names and empties
/// the journal, in one transaction. Either way a commit is one atomic statement, and no commit
/// rewrites the whole database. Opening replays the journal and compacts it. Not reentrant:
/// ``NamespaceEngine`` calls it from one commit loop at a time.
final class NamespaceStore: Sendable {
    private let connection: SQLiteConnection
    private let ledger: Mutex<JournalLedger>

    private init(connection: SQLiteConnection, ledger: JournalLedger) {
        self.connection = connection
        self.ledger = Mutex(ledger)
    }

    /// Opens (creating if needed) the database file at `path`.
    static func open(path: String, journalLimits: JournalLedger = JournalLedger(), logger: Logger) async throws -> NamespaceStore {
        let connection: SQLiteConnection
        do {
            connection = try await DurableSQLite.open(
                path: path,
                schema: [
                    // Checkpoints reuse the log; this trims it back so overwrites never grow the files.
                    "PRAGMA journal_size_limit=8388608",
                    "CREATE TABLE IF NOT EXISTS leaves (path TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
                    "CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
                    "CREATE TABLE IF NOT EXISTS journal (sequence INTEGER PRIMARY KEY, entry TEXT NOT NULL)",
                    // A commit is one INSERT into this view: its triggers, one per kind of operation,
                    // apply each operation in order, and the single statement is one atomic, durable
                    // transaction.
                    "CREATE TEMP VIEW commit_operations AS SELECT NULL AS operation, NULL AS path, NULL AS value",
                    """
                    CREATE TEMP TRIGGER commit_subtree INSTEAD OF INSERT ON commit_operations WHEN NEW.operation = 'subtree' BEGIN
                      DELETE FROM leaves WHERE path = NEW.path;
                      DELETE FROM leaves WHERE path >= NEW.path || '/' AND path < NEW.path || '0';
                    END
                    """,
                    """
                    CREATE TEMP TRIGGER commit_exact INSTEAD OF INSERT ON commit_operations WHEN NEW.operation = 'exact' BEGIN
                      DELETE FROM leaves WHERE path = NEW.path;
                    END
                    """,
                    """
                    CREATE TEMP TRIGGER commit_put INSTEAD OF INSERT ON commit_operations WHEN NEW.operation = 'put' BEGIN
                      INSERT OR REPLACE INTO leaves (path, value) VALUES (NEW.path, NEW.value);
                    END
                    """,
                    """
                    CREATE TEMP TRIGGER commit_clear_journal INSTEAD OF INSERT ON commit_operations
                    WHEN NEW.operation = 'clear_journal' BEGIN
                      DELETE FROM journal;
                    END
                    """,
                ], logger: logger)
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
        return NamespaceStore(connection: connection, ledger: journalLimits)
    }

    func close() async {
        try? await connection.close()
    }

    /// Reads the whole tree, and how many rows it was stored in. A journal left by the last run
    /// is replayed and compacted.
    func loadTree() async throws -> (tree: Node, rows: Int) {
        let assembler = Mutex(TreeAssembler())
        let failure = Mutex<(any Error)?>(nil)
        try await connection.query("SELECT path, value FROM leaves", []) { row in
            guard let path = row.column("path")?.string, let value = row.column("value")?.string else { return }
            assembler.withLock { assembler in
                do {
                    try assembler.add(rowKey: path, json: value)
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        var (tree, rows) = assembler.withLock { ($0.assemble(), $0.rowCount) }
        var replayed: [DatabasePath] = []
        for row in try await connection.query("SELECT sequence, entry FROM journal ORDER BY sequence") {
            guard let sequence = row.column("sequence")?.integer, let entry = row.column("entry")?.string else {
                throw PersistenceError.corruptRow("journal")
            }
            replayed += try Journal.replay(entry, sequence: Int64(sequence), onto: &tree)
            rows += 1
        }
        if !replayed.isEmpty { try await compact(Journal.outermost(replayed), tree: tree) }
        return (tree, rows)
    }

    /// Makes the subtrees at `paths` in the store equal to those of `tree`, in one transaction.
    func commit(paths: [DatabasePath], tree: Node) async throws {
        let roots = Journal.outermost(paths)
        let entry = Journal.entry(roots: roots, tree: tree, maximumBytes: ledger.withLock { $0.remainingBytes })
        guard let entry, !ledger.withLock({ $0.isFull(adding: roots, entryBytes: entry.utf8.count) }) else {
            try await compact(Journal.outermost(ledger.withLock { Array($0.locations) } + roots), tree: tree)
            return
        }
        let entryBytes = entry.utf8.count
        do {
            _ = try await connection.query("INSERT INTO journal (entry) VALUES (?1)", [.text(entry)])
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
        ledger.withLock { $0.record(roots, entryBytes: entryBytes) }
    }

    /// Rewrites the leaf rows of the outermost locations `roots` from `tree` and empties the
    /// journal, in one transaction.
    private func compact(_ roots: [DatabasePath], tree: Node) async throws {
        let operations = CommitPlan(roots: roots, tree: tree).operations
        do {
            _ = try await connection.query(
                """
                INSERT INTO commit_operations (operation, path, value)
                SELECT value->>0, value->>1, value->2 FROM json_each(?1)
                """, [.text(operations)])
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
        ledger.withLock { $0.reset() }
    }

    /// A stored setting (for example the rules document), or `nil`.
    func setting(_ name: String) async throws -> String? {
        let rows = try await connection.query("SELECT value FROM settings WHERE name = ?1", [.text(name)])
        return rows.first?.column("value")?.string
    }

    /// Stores a setting durably.
    func setSetting(_ name: String, _ value: String) async throws {
        _ = try await connection.query(
            "INSERT OR REPLACE INTO settings (name, value) VALUES (?1, ?2)", [.text(name), .text(value)])
    }
}

/// The operations of one compaction, as the JSON array `commit_operations` takes:
/// `["subtree", key]` deletes a node's rows and all rows below it, `["exact", key]` deletes one
/// row, `["put", key, value]` writes one (the value in place, as JSON: the row stores its JSON
/// text), `["clear_journal"]` empties the journal; applied in that order.
private struct CommitPlan {
    private(set) var operations = ""

    /// `roots` are outermost: none lies below another.
    init(roots: [DatabasePath], tree: Node) {
        var ancestors = Set<DatabasePath>()
        for root in roots {
            var ancestor = root
            while !ancestor.isRoot {
                ancestor = ancestor.parent
                ancestors.insert(ancestor)
            }
        }
        var writer = JSONWriter(reservingCapacity: 256)
        writer.writeRaw("[")
        var first = true
        func append(_ operation: String, _ key: String? = nil) {
            writer.writeRaw(first ? "[" : ",[")
            first = false
            writer.writeString(operation)
            if let key {
                writer.writeRaw(",")
                writer.writeString(key)
            }
            writer.writeRaw("]")
        }
        for root in roots {
            append("subtree", LeafRows.rowKey(root))
        }
        for ancestor in ancestors {
            switch tree.child(at: ancestor) {
            case .null:
                append("exact", LeafRows.rowKey(ancestor))
                append("exact", LeafRows.priorityRowKey(ancestor))
            case .object(_, let priority):
                // A leaf turned into an object loses its value and its priority.
                append("exact", LeafRows.rowKey(ancestor))
                if priority == nil { append("exact", LeafRows.priorityRowKey(ancestor)) }
            case .leaf:
                break
            }
        }
        for root in roots {
            LeafRows.forEachRow(of: tree.child(at: root), at: root) { row in
                writer.writeRaw(first ? "[\"put\"," : ",[\"put\",")
                first = false
                row.writeKey(to: &writer)
                writer.writeRaw(",")
                writer.write(row.value)
                writer.writeRaw("]")
            }
        }
        append("clear_journal")
        writer.writeRaw("]")
        operations = String(decoding: writer.bytes, as: UTF8.self)
    }
}
