import HearthCore
import HearthSupport
import Logging
import SQLiteNIO
import Synchronization

/// The durable copy of one namespace: a SQLite database in WAL mode with `synchronous=FULL`, so
/// a commit returns only once it is on disk.
///
/// The tree is kept as leaf rows (``LeafRows``) plus a journal of recent commits (``Journal``).
/// A commit appends one journal row, one atomic statement. Once the journal passes its limits
/// (``JournalLedger``), a compaction begins: it rewrites the leaf rows of every location the
/// journal named up to then, from the tree as of then, in steps of a few hundred locations that
/// the commit loop runs between commits (``compactionStep()``), and then deletes those journal
/// rows. A step is not synced on its own (`synchronous=NORMAL`): the next commit's sync, or the
/// deletion's, covers it, as the log is written in order. A compaction cut short (a crash, a
/// close) leaves its journal rows, which replayed in order over the partly rewritten leaf rows
/// give the tree again, as each row sets whole subtrees. A write too large for the journal goes
/// straight into the leaf rows once a running compaction is done. The log is copied back into
/// the database by ``WALCheckpointer``, beside the commits. Opening replays the journal and
/// compacts it. Not reentrant: ``NamespaceEngine`` calls it from one commit loop at a time.
final class NamespaceStore: Sendable {
    /// Locations a compaction rewrites per transaction.
    static let rootsPerCompactionStep = 64
    /// Journal rows longer than this go straight into the leaf rows instead.
    static let maximumEntryBytes = 1 << 20

    private let connection: SQLiteConnection
    private let checkpointer: WALCheckpointer
    /// The journal since the last compaction began.
    private let ledger: Mutex<JournalLedger>
    /// The compaction under way, if any.
    private let compaction = Mutex<Compaction?>(nil)
    /// Set when the connection could not be put back to syncing every commit: no commit may
    /// then be acknowledged.
    private let unsynced = Mutex<String?>(nil)

    /// A compaction under way: the locations left to rewrite from `tree`, the tree as of the
    /// journal row `through`.
    private struct Compaction {
        var roots: ArraySlice<DatabasePath>
        let tree: Node
        let through: Int64
    }

    private init(connection: SQLiteConnection, checkpointer: WALCheckpointer, ledger: JournalLedger) {
        self.connection = connection
        self.checkpointer = checkpointer
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
                    // The checkpointer copies the log back, beside the commits.
                    "PRAGMA wal_autocheckpoint=0",
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
        do {
            let checkpointer = try await WALCheckpointer.open(path: path, logger: logger)
            return NamespaceStore(connection: connection, checkpointer: checkpointer, ledger: journalLimits)
        } catch {
            try? await connection.close()
            throw PersistenceError.sqlite(String(describing: error))
        }
    }

    /// Closes the database. A compaction under way stops where it is: its journal rows stay, to
    /// be replayed.
    func close() async {
        await checkpointer.close()
        try? await connection.close()
    }

    /// Reads the whole tree, and how many rows it was stored in. A journal left by the last run
    /// is replayed and compacted.
    func loadTree() async throws -> (tree: Node, rows: Int) {
        let assembler = Mutex(TreeAssembler())
        let failure = Mutex<(any Error)?>(nil)
        try await connection.query("SELECT path, value FROM leaves ORDER BY path", []) { row in
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
        if let problem = unsynced.withLock({ $0 }) { throw PersistenceError.sqlite(problem) }
        let roots = Journal.outermost(paths)
        guard let entry = Journal.entry(roots: roots, tree: tree, maximumBytes: Self.maximumEntryBytes) else {
            // Everything the journal names goes into the leaf rows with the write, from `tree`:
            // a compaction still rewriting from an older tree must be done first.
            try await finishCompaction()
            try await compact(Journal.outermost(ledger.withLock { Array($0.locations) } + roots), tree: tree)
            return
        }
        let sequence = try await append(entry)
        let (full, overflowing) = ledger.withLock { ledger in
            ledger.record(roots, entryBytes: entry.utf8.count)
            return (ledger.isFull, ledger.isOverflowing)
        }
        guard full else { return }
        // Journal rows come faster than the steps fold them: this commit waits for the rest.
        if overflowing { try await finishCompaction() }
        beginCompaction(tree: tree, through: sequence)
    }

    /// Whether a compaction has steps left.
    var isCompacting: Bool {
        compaction.withLock { $0 != nil }
    }

    /// Runs the next step of the compaction under way, if any: rewrites the leaf rows of the next
    /// few hundred locations, or, when none is left, deletes the journal rows folded in. When a
    /// step fails its locations go back to the journal's ledger, so that the next compaction,
    /// which deletes every row up to its own, rewrites them too.
    func compactionStep() async throws {
        guard let current = compaction.withLock({ $0 }) else { return }
        do {
            if current.roots.isEmpty {
                try await forgetJournal(through: current.through)
                compaction.withLock { $0 = nil }
                return
            }
            let step = current.roots.prefix(Self.rootsPerCompactionStep)
            try await rewriteLeafRows(Array(step), tree: current.tree, synced: false)
            compaction.withLock { $0?.roots.removeFirst(step.count) }
        } catch {
            compaction.withLock { $0 = nil }
            ledger.withLock { $0.record(Array(current.roots), entryBytes: 0) }
            throw error
        }
    }

    /// Folds the journal rows up to `sequence` into the leaf rows, from `tree` (the tree as of
    /// that row), in steps; nothing when a compaction is under way already.
    private func beginCompaction(tree: Node, through sequence: Int64) {
        compaction.withLock { compaction in
            guard compaction == nil else { return }
            let roots = ledger.withLock { ledger in
                defer { ledger.reset() }
                return Journal.outermost(Array(ledger.locations))
            }
            compaction = Compaction(roots: roots[...], tree: tree, through: sequence)
        }
    }

    /// Runs the steps left of the compaction under way.
    private func finishCompaction() async throws {
        while isCompacting { try await compactionStep() }
    }

    /// Appends a journal row; returns its sequence number.
    private func append(_ entry: String) async throws -> Int64 {
        do {
            let rows = try await connection.query("INSERT INTO journal (entry) VALUES (?1) RETURNING sequence", [.text(entry)])
            guard let sequence = rows.first?.column("sequence")?.integer else { throw PersistenceError.corruptRow("journal") }
            checkpointer.noteCommit(pages: 1 + entry.utf8.count / 4096)
            return Int64(sequence)
        } catch let error as PersistenceError {
            throw error
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
    }

    /// Rewrites the leaf rows of the outermost locations `roots` from `tree` and empties the
    /// journal, in one transaction.
    private func compact(_ roots: [DatabasePath], tree: Node) async throws {
        try await apply(CommitPlan(roots: roots, tree: tree, clearsJournal: true))
        ledger.withLock { $0.reset() }
    }

    /// One step of a compaction: makes the leaf rows of the outermost locations `roots` those of
    /// `tree`, in one transaction, leaving the journal as it is; unless `synced`, without waiting
    /// for the disk.
    func rewriteLeafRows(_ roots: [DatabasePath], tree: Node, synced: Bool = true) async throws {
        if synced {
            try await apply(CommitPlan(roots: roots, tree: tree, clearsJournal: false))
            return
        }
        try await query("PRAGMA synchronous=NORMAL")
        var stepFailure: (any Error)?
        do {
            try await apply(CommitPlan(roots: roots, tree: tree, clearsJournal: false))
        } catch {
            stepFailure = error
        }
        do {
            try await query("PRAGMA synchronous=FULL")
        } catch {
            unsynced.withLock { $0 = "commits can no longer be synced: \(error)" }
            throw error
        }
        if let stepFailure { throw stepFailure }
    }

    private func query(_ statement: String) async throws {
        do {
            _ = try await connection.query(statement)
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
    }

    /// The last step of a compaction: deletes the journal rows it folded into the leaf rows.
    func forgetJournal(through sequence: Int64) async throws {
        do {
            _ = try await connection.query("DELETE FROM journal WHERE sequence <= ?1", [.integer(Int(sequence))])
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
    }

    private func apply(_ plan: CommitPlan) async throws {
        do {
            _ = try await connection.query(
                """
                INSERT INTO commit_operations (operation, path, value)
                SELECT value->>0, value->>1, value->2 FROM json_each(?1)
                """, [.text(plan.operations)])
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
        // Rows land all over the table: count a page for every few operations.
        checkpointer.noteCommit(pages: 1 + plan.operations.utf8.count / 1024)
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
    init(roots: [DatabasePath], tree: Node, clearsJournal: Bool) {
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
        if clearsJournal { append("clear_journal") }
        writer.writeRaw("]")
        operations = String(decoding: writer.bytes, as: UTF8.self)
    }
}
