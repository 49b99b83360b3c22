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
/// journal named up to then, from the tree as of then, 64 locations at a time, and then deletes
/// those journal rows. Each commit carries the next step in its own transaction (no sync of its
/// own), and the commit loop runs the steps left once idle (``compactionStep()``). A compaction
/// cut short (a crash, a close) leaves its journal rows, which replayed in order over the partly
/// rewritten leaf rows give the tree again, as each row sets whole subtrees. A write too large for the journal goes
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
    /// The sequence number of the next journal row.
    private let nextSequence: Mutex<Int64>

    /// A compaction under way: the locations left to rewrite from `tree`, the tree as of the
    /// journal row `through`.
    private struct Compaction {
        var roots: ArraySlice<DatabasePath>
        let tree: Node
        let through: Int64
    }

    private init(connection: SQLiteConnection, checkpointer: WALCheckpointer, ledger: JournalLedger, nextSequence: Int64) {
        self.connection = connection
        self.checkpointer = checkpointer
        self.ledger = Mutex(ledger)
        self.nextSequence = Mutex(nextSequence)
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
                    CREATE TEMP TRIGGER commit_journal INSTEAD OF INSERT ON commit_operations WHEN NEW.operation = 'journal' BEGIN
                      INSERT INTO journal (sequence, entry) VALUES (CAST(NEW.path AS INTEGER), NEW.value);
                    END
                    """,
                    """
                    CREATE TEMP TRIGGER commit_forget_journal INSTEAD OF INSERT ON commit_operations
                    WHEN NEW.operation = 'forget_journal' BEGIN
                      DELETE FROM journal WHERE sequence <= CAST(NEW.path AS INTEGER);
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
            let last = try await connection.query("SELECT COALESCE(MAX(sequence), 0) AS last FROM journal").first?.column("last")?.integer
            let checkpointer = try await WALCheckpointer.open(path: path, logger: logger)
            return NamespaceStore(
                connection: connection, checkpointer: checkpointer, ledger: journalLimits, nextSequence: Int64(last ?? 0) + 1)
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

    /// Makes the subtrees at `paths` in the store equal to those of `tree`, in one transaction,
    /// with the next step of a compaction under way.
    func commit(paths: [DatabasePath], tree: Node) async throws {
        let roots = Journal.outermost(paths)
        guard let entry = Journal.entry(roots: roots, tree: tree, maximumBytes: Self.maximumEntryBytes) else {
            // Everything the journal names goes into the leaf rows with the write, from `tree`:
            // a compaction still rewriting from an older tree must be done first.
            try await finishCompaction()
            try await compact(Journal.outermost(ledger.withLock { Array($0.locations) } + roots), tree: tree)
            return
        }
        let sequence = nextSequence.withLock { $0 }
        var plan = CommitPlan()
        let step = nextStep(into: &plan)
        plan.appendJournal(sequence: sequence, entry: entry)
        try await apply(plan)
        nextSequence.withLock { $0 += 1 }
        finished(step)
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

    /// Runs the next step of the compaction under way on its own, if any (the commit loop calls
    /// this once idle). When it fails its locations go back to the journal's ledger, so that the
    /// next compaction, which deletes every row up to its own, rewrites them too.
    func compactionStep() async throws {
        var plan = CommitPlan()
        let step = nextStep(into: &plan)
        guard step != nil else { return }
        do {
            try await apply(plan)
        } catch {
            let left = compaction.withLock { compaction in
                defer { compaction = nil }
                return compaction.map { Array($0.roots) } ?? []
            }
            ledger.withLock { $0.record(left, entryBytes: 0) }
            throw error
        }
        finished(step)
    }

    /// What one step of a compaction does.
    private enum Step {
        /// Rewrites this many of the locations left.
        case rewrite(count: Int)
        /// Deletes the journal rows folded in: the compaction is done.
        case forget
    }

    /// Adds the next step of the compaction under way to `plan`, if there is one.
    private func nextStep(into plan: inout CommitPlan) -> Step? {
        guard let current = compaction.withLock({ $0 }) else { return nil }
        guard !current.roots.isEmpty else {
            plan.forgetJournal(through: current.through)
            return .forget
        }
        let roots = current.roots.prefix(Self.rootsPerCompactionStep)
        plan.rewrite(Array(roots), from: current.tree)
        return .rewrite(count: roots.count)
    }

    /// Records that `step`, once committed, is done.
    private func finished(_ step: Step?) {
        switch step {
        case .rewrite(let count): compaction.withLock { $0?.roots.removeFirst(count) }
        case .forget: compaction.withLock { $0 = nil }
        case nil: break
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

    /// Rewrites the leaf rows of the outermost locations `roots` from `tree` and empties the
    /// journal, in one transaction.
    private func compact(_ roots: [DatabasePath], tree: Node) async throws {
        var plan = CommitPlan()
        plan.rewrite(roots, from: tree)
        plan.clearJournal()
        try await apply(plan)
        ledger.withLock { $0.reset() }
    }

    /// Runs the steps left of the compaction under way.
    private func finishCompaction() async throws {
        while isCompacting { try await compactionStep() }
    }

    /// Runs `plan` as one statement: one transaction, on disk when this returns.
    func apply(_ plan: CommitPlan) async throws {
        let operations = plan.operations
        do {
            _ = try await connection.query(
                """
                INSERT INTO commit_operations (operation, path, value)
                SELECT value->>0, value->>1, value->2 FROM json_each(?1)
                """, [.text(operations)])
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
        // Rewritten rows land all over the table: count a page for every kilobyte of operations.
        checkpointer.noteCommit(pages: 1 + operations.utf8.count / 1024)
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

/// The operations of one commit, as the JSON array `commit_operations` takes, applied in order:
/// `["subtree", key]` deletes a node's rows and all rows below it, `["exact", key]` deletes one
/// row, `["put", key, value]` writes one (the value in place, as JSON: the row stores its JSON
/// text), `["journal", sequence, entry]` appends a journal row (the entry in place),
/// `["forget_journal", sequence]` deletes the journal rows up to one, `["clear_journal"]` all.
struct CommitPlan {
    private var writer = JSONWriter(reservingCapacity: 256)
    private var isEmpty = true

    init() {
        writer.writeRaw("[")
    }

    /// The JSON array.
    var operations: String {
        var writer = writer
        writer.writeRaw("]")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Makes the leaf rows of the outermost locations `roots` (none lies below another) those
    /// of `tree`.
    mutating func rewrite(_ roots: [DatabasePath], from tree: Node) {
        var ancestors = Set<DatabasePath>()
        for root in roots {
            var ancestor = root
            while !ancestor.isRoot {
                ancestor = ancestor.parent
                ancestors.insert(ancestor)
            }
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
                startOperation()
                writer.writeRaw("\"put\",")
                row.writeKey(to: &writer)
                writer.writeRaw(",")
                writer.write(row.value)
                writer.writeRaw("]")
            }
        }
    }

    /// Appends the journal row `entry` (JSON text) as number `sequence`.
    mutating func appendJournal(sequence: Int64, entry: String) {
        startOperation()
        writer.writeRaw("\"journal\",\"\(sequence)\",")
        writer.writeRaw(entry)
        writer.writeRaw("]")
    }

    /// Deletes the journal rows up to number `sequence`.
    mutating func forgetJournal(through sequence: Int64) {
        append("forget_journal", String(sequence))
    }

    /// Deletes every journal row.
    mutating func clearJournal() {
        append("clear_journal")
    }

    private mutating func append(_ operation: String, _ key: String? = nil) {
        startOperation()
        writer.writeString(operation)
        if let key {
            writer.writeRaw(",")
            writer.writeString(key)
        }
        writer.writeRaw("]")
    }

    private mutating func startOperation() {
        writer.writeRaw(isEmpty ? "[" : ",[")
        isEmpty = false
    }
}
