import HearthCore
import HearthSupport
import Logging
import SQLiteNIO
import Synchronization

/// The tables of one namespace: a SQLite database in WAL mode, beside the node's
/// ``DurableLog``.
///
/// The tree is kept as leaf rows (``LeafRows``) plus the write log (``WriteLog``). A commit
/// renders one log row per write and appends them to the durable log, which makes them durable;
/// the ``TableWriter`` then writes them into the `log` table off the commit path, and folds the
/// rows into the leaf rows once enough have come (a compaction, in steps). The rows not yet
/// folded form the journal: replayed in order over the leaf rows, they give the tree, as each
/// row sets whole subtrees; a compaction cut short leaves its rows unfolded. A write too large
/// for the log goes straight into the leaf rows, in a synced transaction of its own. Opening
/// writes the rows the durable log holds and the tables do not (a crash), replays the journal and
/// compacts it. Not reentrant for commits: ``NamespaceEngine`` commits from one commit loop at a
/// time; history reads may come from anywhere, on a connection of their own
/// (``LazyReadConnection``), and see the rows still on their way to the tables.
final class NamespaceStore: NamespaceStorage {
    /// A batch with a write whose nodes after take more than this goes straight into the leaf
    /// rows instead.
    static let maximumEntryBytes = 1 << 20
    static let foldedSetting = "log_folded_through"
    static let historyBeginsSetting = "history_begins"
    /// The last row the tables held when they were last synced.
    static let syncedSetting = "log_synced_through"

    let name: String
    private let connection: SQLiteConnection
    private let checkpointer: WALCheckpointer
    private let log: any DurableLog
    private let tables: TableWriter
    /// Where the tree's pages are read.
    let pages: PageSource
    var pageSource: PageSource? { pages }
    /// Where the history is read.
    private let historyConnection: LazyReadConnection
    /// The sequence number of the next log row.
    private let nextSequence: Mutex<Int64>
    /// The time of the newest row ever logged (0 before the first), as it was at opening.
    let lastLoggedTime: Int64

    private init(
        name: String, connection: SQLiteConnection, checkpointer: WALCheckpointer, log: any DurableLog, tables: TableWriter,
        pages: PageSource, historyConnection: LazyReadConnection, nextSequence: Int64, lastLoggedTime: Int64
    ) {
        self.pages = pages
        self.name = name
        self.lastLoggedTime = lastLoggedTime
        self.connection = connection
        self.checkpointer = checkpointer
        self.log = log
        self.tables = tables
        self.historyConnection = historyConnection
        self.nextSequence = Mutex(nextSequence)
    }

    /// Creates the tables of a namespace at `path`, empty (`hearth database:create`).
    static func create(path: String, logger: Logger) async throws {
        try await openTables(path: path, logger: logger).close()
    }

    /// Opens the database at `path`, creating its tables if needed.
    private static func openTables(path: String, logger: Logger) async throws -> SQLiteConnection {
        do {
            return try await DurableSQLite.open(
                path: path,
                schema: [
                    // Checkpoints reuse the log; this trims it back so overwrites never grow the files.
                    "PRAGMA journal_size_limit=8388608",
                    // The checkpointer copies the log back, beside the commits.
                    "PRAGMA wal_autocheckpoint=0",
                    // Writes are durable in the durable log first; the tables sync on their own
                    // schedule (``TableWriter``).
                    "PRAGMA synchronous=NORMAL",
                    "CREATE TABLE IF NOT EXISTS leaves (path TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
                    "CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
                    "CREATE TABLE IF NOT EXISTS log (sequence INTEGER PRIMARY KEY, time INTEGER NOT NULL, entry TEXT NOT NULL)",
                    // A transaction of the tables is one INSERT into this view: its triggers, one per
                    // kind of operation, apply each operation in order, and the single statement is
                    // one atomic transaction.
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
    }

    /// Opens (creating if needed) the tables of namespace `name` in the database file at
    /// `path`, and writes into them the rows of theirs that `log` holds and they do not. The
    /// tree's pages count in `cache`; those `listened` names stay loaded.
    static func open(
        path: String, name: String, log: any DurableLog, options: NamespaceStoreOptions = NamespaceStoreOptions(),
        cache: PageCache, listened: ListenedPaths = ListenedPaths(), logger: Logger
    ) async throws -> NamespaceStore {
        let connection = try await openTables(path: path, logger: logger)
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
            // Rows folded may all be deleted: numbering goes on after them.
            let folded = try await connection.query("SELECT value FROM settings WHERE name = ?1", [.text(foldedSetting)])
                .first?.column("value")?.string.flatMap { Int64($0) }
            let lastWritten = max(retention.lastSequence, folded ?? 0)
            let checkpointer = try await WALCheckpointer.open(path: path, logger: logger)
            let pages = PageSource(
                loader: PageLoader(file: path, wholeSubtreeRows: options.wholePageRows, logger: logger), cache: cache, listened: listened)
            let tables = TableWriter(
                name: name, connection: connection, checkpointer: checkpointer, log: log, journalLimits: options.journalLimits,
                retention: retention, lastWritten: lastWritten, logger: logger)
            let recovered = log.unfoldedBatches(of: name)
            do {
                try await tables.recover(recovered)
            } catch {
                await checkpointer.close()
                throw error
            }
            // Time goes on after the rows folded and deleted too.
            let time = try await connection.query(
                """
                SELECT MAX((SELECT COALESCE(MAX(time), 0) FROM log),
                  (SELECT CAST(value AS INTEGER) FROM settings WHERE name = '\(historyBeginsSetting)')) AS time
                """
            ).first?.column("time")?.integer
            return NamespaceStore(
                name: name, connection: connection, checkpointer: checkpointer, log: log, tables: tables, pages: pages,
                historyConnection: LazyReadConnection(path: path, logger: logger),
                nextSequence: max(lastWritten, recovered.last?.lastSequence ?? 0) + 1, lastLoggedTime: Int64(time ?? 0))
        } catch {
            try? await connection.close()
            throw PersistenceError.sqlite(String(describing: error))
        }
    }

    /// Writes every row still on its way into the tables, syncs them, and closes the database.
    /// A compaction under way stops where it is: its rows stay unfolded, to be replayed.
    func close() async {
        await tables.close()
        await checkpointer.close()
        await historyConnection.close()
        try? await connection.close()
    }

    /// The tree, its root's children a page to be loaded on first use, and how many rows of a
    /// journal left by the last run were replayed (and compacted into the leaf rows): only the
    /// pages on the paths those rows name are read for it, and the tree returned is read afresh
    /// from the rows, so that what the replay read is not held.
    func openTree() async throws -> (tree: Node, replayed: Int) {
        var tree = try pages.root()
        var replayed: [DatabasePath] = []
        var count = 0
        let hasLegacyJournal = try await !connection.query("SELECT 1 FROM sqlite_master WHERE name = 'journal'").isEmpty
        if hasLegacyJournal {
            for row in try await connection.query("SELECT sequence, entry FROM journal ORDER BY sequence") {
                guard let sequence = row.column("sequence")?.integer, let entry = row.column("entry")?.string else {
                    throw PersistenceError.corruptRow("journal")
                }
                replayed += try Journal.replay(entry, sequence: Int64(sequence), onto: &tree)
                count += 1
            }
        }
        let folded = try await setting(Self.foldedSetting).flatMap { Int($0) } ?? 0
        for row in try await logRows("WHERE sequence > ?1 ORDER BY sequence", [.integer(folded)]) {
            replayed += try WriteLog.replay(row, onto: &tree)
            count += 1
        }
        if !replayed.isEmpty { try await compact(Journal.outermost(replayed), tree: tree) }
        if hasLegacyJournal {
            // What the journal held happened before the log: history begins now.
            try await setSetting(Self.historyBeginsSetting, String(NamespaceEngine.now()))
            _ = try await connection.query("DROP TABLE journal")
        }
        return (replayed.isEmpty ? tree : try pages.root(), count)
    }

    /// Logs `writes`, which made the subtrees at `paths` equal to those of `tree`: returns the
    /// sequence number of the last one once they are durable. Their rows go into the durable log,
    /// then to the tables off the commit path; a write too large for the log goes into the tables
    /// straight, with the leaf rows it changed, unless the log keeps every write (archived).
    @discardableResult
    func commit(_ writes: [LoggedWrite], paths: [DatabasePath], tree: Node) async throws -> Int64 {
        let first = nextSequence.withLock { $0 }
        let last = first + Int64(writes.count) - 1
        guard !writes.isEmpty else { return last }
        if let failure = tables.failure { throw failure }
        let roots = Journal.outermost(paths)
        let (rows, replayable) = WriteLog.rows(
            of: writes, maximumAfterBytes: log.keepsEveryWrite ? .max : Self.maximumEntryBytes)
        let stored = zip(rows, writes).enumerated().map { offset, pair in
            WriteLog.StoredRow(sequence: first + Int64(offset), time: pair.1.time, text: pair.0.text)
        }
        if replayable {
            try await log.append(LogBatch(namespace: name, firstSequence: first, rows: rows.map(\.text)))
            nextSequence.withLock { $0 = last + 1 }
            try await tables.enqueue(stored, roots: roots, tree: tree)
        } else {
            try await tables.writeLarge(stored, roots: roots, tree: tree)
            nextSequence.withLock { $0 = last + 1 }
        }
        return last
    }

    /// Calls `observer` with the last row folded into the leaf rows after each compaction from
    /// now on: the tree's pages may hold what was written up to there (``NamespaceEngine``).
    func observeFolds(_ observer: @escaping @Sendable (Int64) -> Void) {
        tables.observeFolds(observer)
    }

    /// The node's own tables are never taken over; a failed commit leaves the namespace
    /// read-only until the server restarts (``NamespaceEngine``).
    func observeLoss(_ observer: @escaping @Sendable () -> Void) {}

    /// Writes every row on its way to the tables into them now: the tables then hold every
    /// write committed so far.
    func flush() async throws {
        try await tables.flush()
    }

    /// Whether a compaction has steps left.
    var isCompacting: Bool {
        tables.isCompacting
    }

    /// The sequence number of the last row logged (0 before the first).
    var lastSequence: Int64 {
        nextSequence.withLock { $0 } - 1
    }

    /// Rewrites the leaf rows of the outermost locations `roots` from `tree` and folds every
    /// row (opening, after a replay of the journal).
    private func compact(_ roots: [DatabasePath], tree: Node) async throws {
        try await tables.compact(roots, tree: tree)
    }

    /// Writes every row on its way to the tables, then runs `plan` as one synced transaction
    /// (tests build compactions cut short with it).
    func apply(_ plan: CommitPlan) async throws {
        try await tables.flush(then: plan)
    }

    // MARK: History

    /// The time before which the log keeps no history (ms since 1970; 0: since the beginning).
    func historyBegins() async throws -> Int64 {
        let rows = try await historyConnection.connection().query(
            "SELECT value FROM settings WHERE name = ?1", [.text(Self.historyBeginsSetting)])
        return rows.first?.column("value")?.string.flatMap { Int64($0) } ?? 0
    }

    /// Up to `limit` rows before row `sequence`, newest first, as the last commit left them:
    /// those still on their way to the tables, then those in the tables. The rows on their way
    /// are taken first, as a row leaves them only once the tables hold it.
    func logRows(before sequence: Int64, limit: Int) async throws -> [WriteLog.StoredRow] {
        let waiting = tables.waitingRows(before: sequence).prefix(limit)
        let stored = try await WriteLog.StoredRow.query(
            "WHERE sequence < ?1 ORDER BY sequence DESC LIMIT ?2",
            [.integer(Int(waiting.last?.sequence ?? sequence)), .integer(limit - waiting.count)],
            on: historyConnection.connection())
        return Array(waiting) + stored
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
        try await tables.setSetting(name, value)
    }
}

/// The operations of one commit, as the JSON array `commit_operations` takes, applied in order:
/// `["subtree", key]` deletes a node's rows and all rows below it, `["exact", key]` deletes one
/// row, `["put", key, value]` writes one (the value in place, as JSON: the row stores its JSON
/// text), `["log", sequence, row]` appends a log row (the row in place), `["fold", sequence,
/// deleted]` marks the log rows up to `sequence` folded and deletes those up to `deleted`.
struct CommitPlan: LeafRowOperations {
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

    mutating func deleteSubtree(_ key: String) {
        append("subtree", key)
    }

    mutating func deleteRow(_ key: String) {
        append("exact", key)
    }

    mutating func put(_ row: LeafRows.Row) {
        startOperation()
        writer.writeRaw("\"put\",")
        row.writeKey(to: &writer)
        writer.writeRaw(",")
        writer.write(row.value)
        writer.writeRaw("]")
    }

    /// Appends the log row `text`, number `sequence`.
    mutating func appendLog(sequence: Int64, text: String) {
        startOperation()
        writer.writeRaw("\"log\",\"\(sequence)\",")
        writer.writeRaw(text)
        writer.writeRaw("]")
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
