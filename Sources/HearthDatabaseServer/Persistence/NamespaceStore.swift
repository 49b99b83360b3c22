import HearthCore
import HearthSupport
import Logging
import SQLiteNIO
import Synchronization

/// The durable copy of one namespace: a SQLite database in WAL mode with `synchronous=FULL`, so
/// a commit returns only once it is on disk.
///
/// The tree is kept as leaf rows (``LeafRows``) plus the write log (``WriteLog``): a commit
/// appends one log row per write, in one atomic statement. The rows not yet folded into the
/// leaf rows form the journal. Once it passes its limits (``JournalLedger``), a compaction
/// begins: it rewrites the leaf rows of every location the journal named up to then, from the
/// tree as of then, 64 locations at a time, and then marks those rows folded and deletes the
/// folded rows older than the most recent ``NamespaceStoreOptions/keptWrites``, which stay for the history
/// (``WriteHistory``). Each commit carries the next step in its own transaction (no sync of its
/// own), and the commit loop runs the steps left once idle (``compactionStep()``). A compaction
/// cut short (a crash, a close) leaves its rows unfolded, and they replayed in order over the
/// partly rewritten leaf rows give the tree again, as each row sets whole subtrees. A write too
/// large for the journal goes straight into the leaf rows once a running compaction is done.
/// The SQLite log is copied back into the database by ``WALCheckpointer``, beside the commits.
/// Opening replays the journal and compacts it. Not reentrant for writes: ``NamespaceEngine``
/// commits from one commit loop at a time; history reads may come from anywhere, on a connection
/// of their own (``LazyReadConnection``).
final class NamespaceStore: Sendable {
    /// Locations a compaction rewrites per transaction.
    static let rootsPerCompactionStep = 64
    /// A batch with a write whose nodes after take more than this goes straight into the leaf
    /// rows instead.
    static let maximumEntryBytes = 1 << 20
    static let foldedSetting = "log_folded_through"
    static let historyBeginsSetting = "history_begins"

    private let connection: SQLiteConnection
    private let checkpointer: WALCheckpointer
    /// Where the history is read.
    private let historyConnection: LazyReadConnection
    /// The rows the history keeps.
    private let retention: Mutex<LogRetention>
    /// The journal since the last compaction began.
    private let ledger: Mutex<JournalLedger>
    /// The compaction under way, if any.
    private let compaction = Mutex<Compaction?>(nil)
    /// The sequence number of the next log row.
    private let nextSequence: Mutex<Int64>
    /// The time of the newest row ever logged (0 before the first), as it was at opening.
    let lastLoggedTime: Int64

    /// A compaction under way: the locations left to rewrite from `tree`, the tree as of the
    /// log row `through`.
    private struct Compaction {
        var roots: ArraySlice<DatabasePath>
        let tree: Node
        let through: Int64
    }

    private init(
        connection: SQLiteConnection, checkpointer: WALCheckpointer, historyConnection: LazyReadConnection,
        options: NamespaceStoreOptions, retention: LogRetention, nextSequence: Int64, lastLoggedTime: Int64
    ) {
        self.lastLoggedTime = lastLoggedTime
        self.connection = connection
        self.checkpointer = checkpointer
        self.historyConnection = historyConnection
        self.retention = Mutex(retention)
        self.ledger = Mutex(options.journalLimits)
        self.nextSequence = Mutex(nextSequence)
    }

    /// Opens (creating if needed) the database file at `path`.
    static func open(path: String, options: NamespaceStoreOptions = NamespaceStoreOptions(), logger: Logger) async throws -> NamespaceStore
    {
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
                    "CREATE TABLE IF NOT EXISTS log (sequence INTEGER PRIMARY KEY, time INTEGER NOT NULL, entry TEXT NOT NULL)",
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
                    CREATE TEMP TRIGGER commit_log INSTEAD OF INSERT ON commit_operations WHEN NEW.operation = 'log' BEGIN
                      INSERT INTO log (sequence, time, entry) VALUES (CAST(NEW.path AS INTEGER), NEW.value->>'t', NEW.value);
                    END
                    """,
                    // Marks the rows up to `path` folded, and deletes those up to `value`; history
                    // then begins at the time of the newest row deleted.
                    """
                    CREATE TEMP TRIGGER commit_fold INSTEAD OF INSERT ON commit_operations WHEN NEW.operation = 'fold' BEGIN
                      INSERT OR REPLACE INTO settings (name, value) VALUES ('\(foldedSetting)', NEW.path);
                      INSERT OR REPLACE INTO settings (name, value)
                        SELECT '\(historyBeginsSetting)', time FROM log WHERE sequence <= CAST(NEW.value AS INTEGER)
                        ORDER BY sequence DESC LIMIT 1;
                      DELETE FROM log WHERE sequence <= CAST(NEW.value AS INTEGER);
                    END
                    """,
                ], logger: logger)
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
        do {
            var retention = LogRetention(keptWrites: options.keptWrites, keptBytes: options.keptBytes)
            for row in try await connection.query("SELECT sequence, length(CAST(entry AS BLOB)) AS bytes FROM log ORDER BY sequence") {
                guard let sequence = row.column("sequence")?.integer, let bytes = row.column("bytes")?.integer else {
                    throw PersistenceError.corruptRow("log")
                }
                retention.appended(Int64(sequence), bytes: bytes)
            }
            // History of a namespace stored before it had a log begins now.
            _ = try await connection.query(
                """
                INSERT OR IGNORE INTO settings (name, value)
                SELECT '\(historyBeginsSetting)', CASE WHEN EXISTS (SELECT 1 FROM leaves) THEN ?1 ELSE 0 END
                """, [.integer(Int(NamespaceEngine.now()))])
            let checkpointer = try await WALCheckpointer.open(path: path, logger: logger)
            // Rows folded may all be deleted: numbering and time go on after them.
            let marks = try await connection.query(
                """
                SELECT (SELECT value FROM settings WHERE name = '\(foldedSetting)') AS folded,
                  MAX((SELECT COALESCE(MAX(time), 0) FROM log),
                      (SELECT CAST(value AS INTEGER) FROM settings WHERE name = '\(historyBeginsSetting)')) AS time
                """
            ).first
            return NamespaceStore(
                connection: connection, checkpointer: checkpointer,
                historyConnection: LazyReadConnection(path: path, logger: logger), options: options, retention: retention,
                nextSequence: max(retention.lastSequence, marks?.column("folded")?.string.flatMap { Int64($0) } ?? 0) + 1,
                lastLoggedTime: Int64(marks?.column("time")?.integer ?? 0))
        } catch {
            try? await connection.close()
            throw PersistenceError.sqlite(String(describing: error))
        }
    }

    /// Closes the database. A compaction under way stops where it is: its rows stay unfolded,
    /// to be replayed.
    func close() async {
        await checkpointer.close()
        await historyConnection.close()
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
        let hasLegacyJournal = try await !connection.query("SELECT 1 FROM sqlite_master WHERE name = 'journal'").isEmpty
        if hasLegacyJournal {
            for row in try await connection.query("SELECT sequence, entry FROM journal ORDER BY sequence") {
                guard let sequence = row.column("sequence")?.integer, let entry = row.column("entry")?.string else {
                    throw PersistenceError.corruptRow("journal")
                }
                replayed += try Journal.replay(entry, sequence: Int64(sequence), onto: &tree)
                rows += 1
            }
        }
        let folded = try await setting(Self.foldedSetting).flatMap { Int($0) } ?? 0
        for row in try await logRows("WHERE sequence > ?1 ORDER BY sequence", [.integer(folded)]) {
            replayed += try WriteLog.replay(row, onto: &tree)
            rows += 1
        }
        if !replayed.isEmpty { try await compact(Journal.outermost(replayed), tree: tree) }
        if hasLegacyJournal {
            // What the journal held happened before the log: history begins now.
            try await setSetting(Self.historyBeginsSetting, String(NamespaceEngine.now()))
            _ = try await connection.query("DROP TABLE journal")
        }
        return (tree, rows)
    }

    /// Makes the subtrees at `paths` in the store equal to those of `tree` and logs `writes`,
    /// the writes that made them so, in one transaction, with the next step of a compaction
    /// under way. Returns the sequence number of the last write logged.
    @discardableResult
    func commit(_ writes: [LoggedWrite], paths: [DatabasePath], tree: Node) async throws -> Int64 {
        let first = nextSequence.withLock { $0 }
        let last = first + Int64(writes.count) - 1
        guard !writes.isEmpty else { return last }
        let roots = Journal.outermost(paths)
        let (rows, replayable) = WriteLog.rows(of: writes, maximumAfterBytes: Self.maximumEntryBytes)
        guard replayable else {
            // Everything the journal names goes into the leaf rows with the write, from `tree`:
            // a compaction still rewriting from an older tree must be done first.
            try await finishCompaction()
            let rewritten = Journal.outermost(ledger.withLock { Array($0.locations) } + roots)
            var plan = CommitPlan()
            plan.clear(rewritten, from: tree)
            appendLog(rows, from: first, into: &plan)
            let deleted = fold(through: last, into: &plan)
            try await apply(plan, thenRowsOf: rewritten, from: tree)
            nextSequence.withLock { $0 = last + 1 }
            retention.withLock { $0.deleted(through: deleted) }
            ledger.withLock { $0.reset() }
            return last
        }
        var plan = CommitPlan()
        let step = nextStep(into: &plan)
        appendLog(rows, from: first, into: &plan)
        try await apply(plan)
        nextSequence.withLock { $0 = last + 1 }
        finished(step)
        let (full, overflowing) = ledger.withLock { ledger in
            ledger.record(roots, entries: rows.count, entryBytes: rows.reduce(0) { $0 + $1.text.utf8.count })
            return (ledger.isFull, ledger.isOverflowing)
        }
        guard full else { return last }
        // Rows come faster than the steps fold them: this commit waits for the rest.
        if overflowing { try await finishCompaction() }
        beginCompaction(tree: tree, through: last)
        return last
    }

    /// Adds `rows` to `plan`, numbered from `first`.
    private func appendLog(_ rows: [WriteLog.Row], from first: Int64, into plan: inout CommitPlan) {
        plan.appendLog(rows, from: first)
        retention.withLock { retention in
            for (offset, row) in rows.enumerated() { retention.appended(first + Int64(offset), bytes: row.text.utf8.count) }
        }
    }

    /// Adds to `plan` the fold of the rows through `sequence`, which deletes those the history
    /// does not keep; returns the newest row it deletes.
    private func fold(through sequence: Int64, into plan: inout CommitPlan) -> Int64 {
        let deleted = retention.withLock { $0.deletionBound(foldedThrough: sequence) }
        plan.fold(through: sequence, deletingThrough: deleted)
        return deleted
    }

    /// The sequence number of the last row logged (0 before the first).
    var lastSequence: Int64 {
        nextSequence.withLock { $0 } - 1
    }

    /// Whether a compaction has steps left.
    var isCompacting: Bool {
        compaction.withLock { $0 != nil }
    }

    /// Runs the next step of the compaction under way on its own, if any (the commit loop calls
    /// this once idle). When it fails its locations go back to the journal's ledger, so that the
    /// next compaction, which folds every row up to its own, rewrites them too.
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
            ledger.withLock { $0.record(left, entries: 0, entryBytes: 0) }
            throw error
        }
        finished(step)
    }

    /// What one step of a compaction does.
    private enum Step {
        /// Rewrites this many of the locations left.
        case rewrite(count: Int)
        /// Marks the rows folded in, deleting those up to `deleted`: the compaction is done.
        case fold(deleted: Int64)
    }

    /// Adds the next step of the compaction under way to `plan`, if there is one.
    private func nextStep(into plan: inout CommitPlan) -> Step? {
        guard let current = compaction.withLock({ $0 }) else { return nil }
        guard !current.roots.isEmpty else {
            return .fold(deleted: fold(through: current.through, into: &plan))
        }
        let roots = current.roots.prefix(Self.rootsPerCompactionStep)
        plan.rewrite(Array(roots), from: current.tree)
        return .rewrite(count: roots.count)
    }

    /// Records that `step`, once committed, is done.
    private func finished(_ step: Step?) {
        switch step {
        case .rewrite(let count): compaction.withLock { $0?.roots.removeFirst(count) }
        case .fold(let deleted):
            retention.withLock { $0.deleted(through: deleted) }
            compaction.withLock { $0 = nil }
        case nil: break
        }
    }

    /// Folds the log rows up to `sequence` into the leaf rows, from `tree` (the tree as of
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

    /// Rewrites the leaf rows of the outermost locations `roots` from `tree` and folds every
    /// row, in one transaction.
    private func compact(_ roots: [DatabasePath], tree: Node) async throws {
        var plan = CommitPlan()
        plan.rewrite(roots, from: tree)
        let deleted = fold(through: lastSequence, into: &plan)
        try await apply(plan)
        retention.withLock { $0.deleted(through: deleted) }
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
            try await run(operations)
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
        // Rewritten rows land all over the table: count a page for every kilobyte of operations.
        checkpointer.noteCommit(pages: 1 + operations.utf8.count / 1024)
    }

    /// Bytes of leaf rows per statement of a commit too large for one.
    static let rowChunkBytes = 4 << 20

    /// Runs `plan`, then writes the leaf rows of `roots` from `tree`, as one transaction of
    /// several statements: for a write too large for the journal, whose rows in one statement
    /// would make it, and the text it is built from, as large as the write. The rows go straight
    /// into the table, a few megabytes at a time, without the operations' triggers.
    private func apply(_ plan: CommitPlan, thenRowsOf roots: [DatabasePath], from tree: Node) async throws {
        var written = 0
        do {
            _ = try await connection.query("BEGIN IMMEDIATE")
            do {
                try await run(plan.operations)
                var chunker = LeafRowChunker(chunkBytes: Self.rowChunkBytes) { [connection] chunk in
                    _ = try await connection.query(
                        "INSERT OR REPLACE INTO leaves (path, value) SELECT value->>0, value->1 FROM json_each(?1)", [.text(chunk)])
                }
                for root in roots { try await chunker.add(tree.child(at: root), at: root.keys) }
                try await chunker.flush()
                written = chunker.sentBytes
                _ = try await connection.query("COMMIT")
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
        } catch {
            throw PersistenceError.sqlite(String(describing: error))
        }
        checkpointer.noteCommit(pages: 1 + written / 1024)
    }

    /// Runs the operations `operations` (a ``CommitPlan``'s) as one statement.
    private func run(_ operations: String) async throws {
        _ = try await connection.query(
            """
            INSERT INTO commit_operations (operation, path, value)
            SELECT value->>0, value->>1, value->2 FROM json_each(?1)
            """, [.text(operations)])
    }

    // MARK: History

    /// The time before which the log keeps no history (ms since 1970; 0: since the beginning).
    func historyBegins() async throws -> Int64 {
        let rows = try await historyConnection.connection().query(
            "SELECT value FROM settings WHERE name = ?1", [.text(Self.historyBeginsSetting)])
        return rows.first?.column("value")?.string.flatMap { Int64($0) } ?? 0
    }

    /// Up to `limit` rows before row `sequence`, newest first, as the last commit left them.
    func logRows(before sequence: Int64, limit: Int) async throws -> [WriteLog.StoredRow] {
        try await WriteLog.StoredRow.query(
            "WHERE sequence < ?1 ORDER BY sequence DESC LIMIT ?2", [.integer(Int(sequence)), .integer(limit)],
            on: historyConnection.connection())
    }

    private func logRows(_ condition: String, _ bindings: [SQLiteData]) async throws -> [WriteLog.StoredRow] {
        try await WriteLog.StoredRow.query(condition, bindings, on: connection)
    }

    // MARK: Settings

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
/// text), `["log", sequence, row]` appends a log row (the row in place), `["fold", sequence,
/// deleted]` marks the log rows up to `sequence` folded and deletes those up to `deleted`.
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
        clear(roots, from: tree)
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

    /// Deletes the leaf rows of the outermost locations `roots` (none lies below another), and
    /// those of their ancestors that `tree` no longer holds: what a rewrite does before it
    /// writes the rows of `tree` there.
    mutating func clear(_ roots: [DatabasePath], from tree: Node) {
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
    }

    /// Appends `rows` to the log, numbered from `first`.
    mutating func appendLog(_ rows: [WriteLog.Row], from first: Int64) {
        for (offset, row) in rows.enumerated() {
            startOperation()
            writer.writeRaw("\"log\",\"\(first + Int64(offset))\",")
            writer.writeRaw(row.text)
            writer.writeRaw("]")
        }
    }

    /// Marks the log rows up to `sequence` folded into the leaf rows, and deletes the rows up to
    /// `deleted` (none when it is not positive).
    mutating func fold(through sequence: Int64, deletingThrough deleted: Int64) {
        startOperation()
        writer.writeRaw("\"fold\",\"\(sequence)\",\(deleted)]")
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

extension WriteLog.StoredRow {
    /// The log rows `condition` (`WHERE …`, `ORDER BY …`) selects, on `connection`.
    static func query(_ condition: String, _ bindings: [SQLiteData], on connection: SQLiteConnection) async throws -> [Self] {
        try await connection.query("SELECT sequence, time, entry FROM log \(condition)", bindings).map { row in
            guard let sequence = row.column("sequence")?.integer, let time = row.column("time")?.integer,
                let text = row.column("entry")?.string
            else { throw PersistenceError.corruptRow("log") }
            return Self(sequence: Int64(sequence), time: Int64(time), text: text)
        }
    }
}
