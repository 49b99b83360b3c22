import HearthCore
import HearthSupport
import Logging
import SQLiteNIO
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes a namespace's SQLite tables: folds the batches the ``DurableLog`` made durable into
/// them, off the commit path, and runs the compaction that folds the log rows into the leaf rows.
///
/// A commit hands its rows over once the durable log holds them (``enqueue(_:roots:tree:)``);
/// a task of this writer's own appends every row waiting, with the next step of a compaction
/// under way, as one transaction without a sync of its own (`synchronous=NORMAL`). At least
/// every ``syncInterval``, and after ``syncBytes`` of rows, a transaction runs with a sync, which
/// makes every one before it durable too; the durable log is then told that the tables hold
/// those rows (``DurableLog/checkpointed(_:through:)``) and may forget them.
///
/// Once the rows not yet folded pass the ``JournalLedger``'s limits, a compaction begins: it
/// rewrites the leaf rows of every location they named, from the tree as of the last of them,
/// 64 locations per transaction, then marks those rows folded and deletes the folded rows older
/// than the history keeps. Every write to the connection goes through one queue
/// (``MutationQueue``), so that a transaction of several statements never interleaves with
/// another. A failed write leaves the tables as they were, and every later commit fails.
final class TableWriter: Sendable {
    /// Locations a compaction rewrites per transaction.
    static let rootsPerCompactionStep = 64
    /// The longest the tables go without a sync while rows wait to be made durable.
    static let syncInterval = Duration.seconds(1)
    /// Bytes of rows written since the last sync past which the next transaction syncs.
    static let syncBytes = 8 << 20
    /// Bytes of rows waiting past which a commit waits for them to be written.
    static let maximumWaitingBytes = 32 << 20
    /// Bytes of leaf rows per statement of a write too large for the log.
    static let rowChunkBytes = 4 << 20

    let name: String
    private let connection: SQLiteConnection
    private let checkpointer: WALCheckpointer
    private let log: any DurableLog
    private let logger: Logger
    private let queue = MutationQueue()
    private let state: Mutex<State>
    /// Told the last row folded into the leaf rows, after each compaction.
    private let foldObserver = Mutex<(@Sendable (Int64) -> Void)?>(nil)

    /// Rows handed over by a commit, not yet in the tables.
    private struct Waiting {
        let rows: [WriteLog.StoredRow]
        /// The outermost locations the rows replaced.
        let roots: [DatabasePath]
        /// The tree as of the last of the rows.
        let tree: Node
        let bytes: Int
    }

    /// A compaction under way: the locations left to rewrite from `tree`, the tree as of the
    /// log row `through`.
    private struct Compaction {
        var roots: ArraySlice<DatabasePath>
        let tree: Node
        let through: Int64
    }

    private struct State {
        var waiting: [Waiting] = []
        var waitingBytes = 0
        var isRunning = false
        var isClosed = false
        var failure: PersistenceError?
        /// The last row in the tables.
        var written: Int64
        /// The last row the tables hold durably.
        var synced: Int64
        var bytesSinceSync = 0
        /// Whether a sync waits for the end of the interval.
        var isSyncScheduled = false
        var lastSync = ContinuousClock.now
        var ledger: JournalLedger
        var retention: LogRetention
        var compaction: Compaction?
    }

    init(
        name: String, connection: SQLiteConnection, checkpointer: WALCheckpointer, log: any DurableLog,
        journalLimits: JournalLedger, retention: LogRetention, lastWritten: Int64, logger: Logger
    ) {
        self.name = name
        self.connection = connection
        self.checkpointer = checkpointer
        self.log = log
        self.logger = logger
        self.state = Mutex(State(written: lastWritten, synced: lastWritten, ledger: journalLimits, retention: retention))
    }

    /// The error that stopped this writer, if any.
    var failure: PersistenceError? {
        state.withLock { $0.failure }
    }

    /// Whether a compaction has steps left.
    var isCompacting: Bool {
        state.withLock { $0.compaction != nil }
    }

    /// Calls `observer` with the last row folded into the leaf rows each time a compaction or
    /// a large write folds rows, from then on.
    func observeFolds(_ observer: @escaping @Sendable (Int64) -> Void) {
        foldObserver.withLock { $0 = observer }
    }

    /// Tells the observer that the rows up to `sequence` are folded.
    private func folded(through sequence: Int64?) {
        guard let sequence, let observer = foldObserver.withLock({ $0 }) else { return }
        observer(sequence)
    }

    // MARK: Rows

    /// Hands over `rows`, durable in the log: they replaced the outermost locations `roots`
    /// and left `tree`. Waits only when too many rows wait already.
    func enqueue(_ rows: [WriteLog.StoredRow], roots: [DatabasePath], tree: Node) async throws(PersistenceError) {
        let bytes = rows.reduce(0) { $0 + $1.text.utf8.count }
        let (starts, full) = try state.withLock { state throws(PersistenceError) -> (Bool, Bool) in
            if let failure = state.failure ?? (state.isClosed ? .log("the namespace's store is closed") : nil) { throw failure }
            state.waiting.append(Waiting(rows: rows, roots: roots, tree: tree, bytes: bytes))
            state.waitingBytes += bytes
            defer { state.isRunning = true }
            return (!state.isRunning, state.waitingBytes > Self.maximumWaitingBytes)
        }
        if starts { Task { await self.run() } }
        if full { try await flush() }
    }

    /// The rows handed over and not yet in the tables, before row `sequence`, newest first.
    func waitingRows(before sequence: Int64) -> [WriteLog.StoredRow] {
        state.withLock { state in state.waiting.flatMap(\.rows).filter { $0.sequence < sequence }.reversed() }
    }

    /// Writes what waits, and runs the compaction's steps while nothing waits, until nothing is
    /// left or the writer closes; then, if rows are not synced yet, schedules the sync.
    private func run() async {
        while true {
            let working = state.withLock { state in
                let working = !state.isClosed && state.failure == nil && (!state.waiting.isEmpty || state.compaction != nil)
                if !working { state.isRunning = false }
                return working
            }
            guard working else { break }
            do {
                try await exclusively { () throws(PersistenceError) in
                    if self.state.withLock({ $0.isClosed }) {
                        return
                    } else if self.state.withLock({ !$0.waiting.isEmpty }) {
                        try await self.writeWaiting()
                    } else {
                        try await self.compactionStep()
                    }
                }
            } catch {
                logger.critical(
                    "the namespace's tables cannot be written; it is read-only until restart",
                    metadata: ["namespace": "\(logSafe: name)", "error": "\(logSafe: error)"])
                return
            }
        }
        scheduleSync()
    }

    /// Syncs the tables once ``syncInterval`` has passed since the last sync, if rows written
    /// are not synced by then (a transaction that syncs on its own may come first).
    private func scheduleSync() {
        let delay = state.withLock { state -> Duration? in
            guard !state.isSyncScheduled, !state.isClosed, state.synced < state.written else { return nil }
            state.isSyncScheduled = true
            return max(.zero, Self.syncInterval - (ContinuousClock.now - state.lastSync))
        }
        guard let delay else { return }
        Task {
            try? await Task.sleep(for: delay)
            try? await exclusively { () throws(PersistenceError) in
                self.state.withLock { $0.isSyncScheduled = false }
                guard self.state.withLock({ !$0.isClosed && $0.failure == nil && $0.synced < $0.written }) else { return }
                try await self.sync()
            }
        }
    }

    /// Writes every row waiting into the tables now.
    func flush() async throws(PersistenceError) {
        try await exclusively { () throws(PersistenceError) in try await self.writeWaiting() }
    }

    /// Writes every row waiting, then runs `plan` as one synced transaction.
    func flush(then plan: CommitPlan) async throws(PersistenceError) {
        try await exclusively { () throws(PersistenceError) in
            try await self.writeWaiting()
            try await self.apply(plan, synced: true, through: nil)
        }
    }

    /// Writes every row waiting, with the next step of a compaction under way, in one
    /// transaction (synced when one is due), then begins a compaction if the ledger is full.
    private func writeWaiting() async throws(PersistenceError) {
        let (batches, step) = state.withLock { state in (state.waiting, Self.nextStep(of: &state)) }
        guard let last = batches.last?.rows.last?.sequence else { return }
        let bytes = batches.reduce(0) { $0 + $1.bytes }
        var plan = step.plan
        for batch in batches {
            for row in batch.rows { plan.appendLog(sequence: row.sequence, text: row.text) }
        }
        let syncs = state.withLock { state in
            state.bytesSinceSync + bytes >= Self.syncBytes || ContinuousClock.now - state.lastSync >= Self.syncInterval
        }
        try await apply(plan, synced: syncs, through: last)
        let folded = state.withLock { state in
            state.waiting.removeFirst(batches.count)
            state.waitingBytes -= bytes
            if !syncs { state.bytesSinceSync += bytes }
            let folded = Self.finished(step.step, in: &state)
            for batch in batches {
                for row in batch.rows { state.retention.appended(row.sequence, bytes: row.text.utf8.count) }
                state.ledger.record(batch.roots, entries: batch.rows.count, entryBytes: batch.bytes)
            }
            return folded
        }
        self.folded(through: folded)
        guard state.withLock({ $0.ledger.isFull }) else { return }
        // Rows come faster than the steps fold them: the rest is done before the next begins.
        if state.withLock({ $0.ledger.isOverflowing }) { try await finishCompaction() }
        state.withLock { state in
            guard state.compaction == nil else { return }
            defer { state.ledger.reset() }
            state.compaction = Compaction(
                roots: Journal.outermost(Array(state.ledger.locations))[...], tree: batches[batches.count - 1].tree, through: last)
        }
    }

    /// Writes `rows` (a write too large for the log, rows without nodes after) with the leaf
    /// rows of `roots` and every location the unfolded rows name, from `tree`, in one synced
    /// transaction: every row waiting goes first, and a compaction under way is finished.
    func writeLarge(_ rows: [WriteLog.StoredRow], roots: [DatabasePath], tree: Node) async throws(PersistenceError) {
        try await exclusively { () throws(PersistenceError) in
            try self.checkUsable()
            try await self.writeWaiting()
            try await self.finishCompaction()
            let (rewritten, deleted) = self.state.withLock { state in
                for row in rows { state.retention.appended(row.sequence, bytes: row.text.utf8.count) }
                let last = rows.last?.sequence ?? state.written
                return (
                    Journal.outermost(Array(state.ledger.locations) + roots),
                    state.retention.deletionBound(foldedThrough: last)
                )
            }
            var plan = CommitPlan()
            plan.clear(rewritten, from: tree)
            for row in rows { plan.appendLog(sequence: row.sequence, text: row.text) }
            plan.fold(through: rows.last?.sequence ?? 0, deletingThrough: deleted)
            try await self.apply(plan, thenRowsOf: rewritten, from: tree, through: rows.last?.sequence ?? 0)
            self.state.withLock { state in
                state.retention.deleted(through: deleted)
                state.ledger.reset()
            }
            self.folded(through: rows.last?.sequence)
        }
    }

    // MARK: Compaction

    /// Runs the next step of the compaction under way on its own, if any.
    private func compactionStep() async throws(PersistenceError) {
        let step = state.withLock { Self.nextStep(of: &$0) }
        guard step.step != nil else { return }
        try await apply(step.plan, synced: false, through: nil)
        folded(through: state.withLock { Self.finished(step.step, in: &$0) })
    }

    /// What one step of a compaction does.
    private enum Step {
        /// Rewrites this many of the locations left.
        case rewrite(count: Int)
        /// Marks the rows folded in, deleting those up to `deleted`: the compaction is done.
        case fold(deleted: Int64)
    }

    /// The plan of the next step of the compaction under way, if there is one.
    private static func nextStep(of state: inout State) -> (plan: CommitPlan, step: Step?) {
        var plan = CommitPlan()
        guard let current = state.compaction else { return (plan, nil) }
        guard !current.roots.isEmpty else {
            let deleted = state.retention.deletionBound(foldedThrough: current.through)
            plan.fold(through: current.through, deletingThrough: deleted)
            return (plan, .fold(deleted: deleted))
        }
        let roots = current.roots.prefix(rootsPerCompactionStep)
        plan.rewrite(Array(roots), from: current.tree)
        return (plan, .rewrite(count: roots.count))
    }

    /// Records that `step`, once written, is done; returns the last row folded when it ended
    /// the compaction.
    private static func finished(_ step: Step?, in state: inout State) -> Int64? {
        switch step {
        case .rewrite(let count):
            state.compaction?.roots.removeFirst(count)
            return nil
        case .fold(let deleted):
            state.retention.deleted(through: deleted)
            defer { state.compaction = nil }
            return state.compaction?.through
        case nil:
            return nil
        }
    }

    /// Runs the steps left of the compaction under way.
    private func finishCompaction() async throws(PersistenceError) {
        while isCompacting { try await compactionStep() }
    }

    /// Rewrites the leaf rows of the outermost locations `roots` from `tree` and folds every
    /// row, in one synced transaction (opening, after a replay of the log).
    func compact(_ roots: [DatabasePath], tree: Node) async throws(PersistenceError) {
        try await exclusively { () throws(PersistenceError) in
            let (through, deleted) = self.state.withLock { state in
                (state.written, state.retention.deletionBound(foldedThrough: state.written))
            }
            var plan = CommitPlan()
            plan.rewrite(roots, from: tree)
            plan.fold(through: through, deletingThrough: deleted)
            try await self.apply(plan, synced: true, through: through)
            self.state.withLock { state in
                state.retention.deleted(through: deleted)
                state.ledger.reset()
            }
        }
    }

    // MARK: Durability

    /// Makes every row in the tables durable: a synced commit syncs the file that holds every
    /// commit before it. It writes how far the tables are synced, as a commit that changes
    /// nothing would not sync.
    private func sync() async throws(PersistenceError) {
        let written = state.withLock { $0.written }
        do {
            try await synchronously {
                _ = try await connection.query(
                    "INSERT OR REPLACE INTO settings (name, value) VALUES (?1, ?2)",
                    [.text(NamespaceStore.syncedSetting), .text(String(written))])
            }
        } catch {
            throw failed(error)
        }
        syncedEverything()
    }

    /// Makes every row the tables hold durable (opening: a previous run may have left commits
    /// that were never synced), then writes `batches`, found in the durable log, past them.
    func recover(_ batches: [LogBatch]) async throws(PersistenceError) {
        try await exclusively { () throws(PersistenceError) in
            let first = self.state.withLock { $0.written } + 1
            var plan = CommitPlan()
            var next = first
            for batch in batches where batch.lastSequence >= next {
                guard batch.firstSequence <= next else {
                    throw .log("namespace \(self.name) lacks rows \(next) to \(batch.firstSequence - 1) of its log")
                }
                for (offset, text) in batch.rows.enumerated() where batch.firstSequence + Int64(offset) >= next {
                    plan.appendLog(sequence: batch.firstSequence + Int64(offset), text: text)
                    self.state.withLock { $0.retention.appended(batch.firstSequence + Int64(offset), bytes: text.utf8.count) }
                }
                next = batch.lastSequence + 1
            }
            if next > first { try await self.apply(plan, synced: false, through: next - 1) }
            try await self.sync()
        }
    }

    /// Writes every row waiting, makes the tables durable and stops: a compaction under way
    /// stops where it is (its rows stay unfolded, to be replayed).
    func close() async {
        try? await exclusively { () throws(PersistenceError) in
            if self.state.withLock({ $0.failure == nil }) {
                try await self.writeWaiting()
                if self.state.withLock({ $0.synced < $0.written }) { try await self.sync() }
            }
            self.state.withLock { $0.isClosed = true }
        }
    }

    /// Stores a setting durably.
    func setSetting(_ name: String, _ value: String) async throws(PersistenceError) {
        try await exclusively { () throws(PersistenceError) in
            try self.checkUsable()
            do {
                try await self.synchronously {
                    _ = try await self.connection.query(
                        "INSERT OR REPLACE INTO settings (name, value) VALUES (?1, ?2)", [.text(name), .text(value)])
                }
            } catch {
                throw self.failed(error)
            }
            self.syncedEverything()
        }
    }

    // MARK: Statements

    /// Runs `body` alone on the connection.
    private func exclusively(_ body: @Sendable () async throws(PersistenceError) -> Void) async throws(PersistenceError) {
        do {
            try await queue.run { try await body() }
        } catch let error as PersistenceError {
            throw error
        } catch {
            throw .sqlite(String(describing: error))
        }
    }

    private func checkUsable() throws(PersistenceError) {
        if let failure = state.withLock({ $0.failure ?? ($0.isClosed ? .log("the namespace's store is closed") : nil) }) {
            throw failure
        }
    }

    /// Runs `plan` as one statement, one transaction; with `synced`, on disk when this returns,
    /// with every transaction before it. `through`: the last row it writes, if any.
    private func apply(_ plan: CommitPlan, synced: Bool, through last: Int64?) async throws(PersistenceError) {
        let operations = plan.operations
        do {
            if synced {
                try await synchronously { try await self.run(operations) }
            } else {
                try await run(operations)
            }
        } catch {
            throw failed(error)
        }
        if let last { state.withLock { $0.written = max($0.written, last) } }
        if synced { syncedEverything() }
        // Rewritten rows land all over the table: count a page for every kilobyte of operations.
        checkpointer.noteCommit(pages: 1 + operations.utf8.count / 1024)
    }

    /// Runs `plan`, then writes the leaf rows of `roots` from `tree`, as one synced transaction
    /// of several statements: the rows of a write too large for the log would make one statement,
    /// and the text it is built from, as large as the write. The rows go straight into the
    /// table, a few megabytes at a time, without the operations' triggers.
    private func apply(_ plan: CommitPlan, thenRowsOf roots: [DatabasePath], from tree: Node, through last: Int64)
        async throws(PersistenceError)
    {
        var written = 0
        do {
            try await synchronously {
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
            }
        } catch {
            throw failed(error)
        }
        state.withLock { $0.written = max($0.written, last) }
        syncedEverything()
        checkpointer.noteCommit(pages: 1 + written / 1024)
    }

    /// Runs `body` with `synchronous=FULL`: its commits sync the log of the tables, and so make
    /// every commit before them durable too.
    private func synchronously(_ body: () async throws -> Void) async throws {
        _ = try await connection.query("PRAGMA synchronous=FULL")
        do {
            try await body()
        } catch {
            _ = try? await connection.query("PRAGMA synchronous=NORMAL")
            throw error
        }
        _ = try await connection.query("PRAGMA synchronous=NORMAL")
    }

    /// Records that every row written is durable, and tells the durable log.
    private func syncedEverything() {
        let written = state.withLock { state in
            state.synced = state.written
            state.bytesSinceSync = 0
            state.lastSync = .now
            return state.written
        }
        log.checkpointed(name, through: written)
    }

    /// Records `error` as this writer's failure and returns it.
    private func failed(_ error: any Error) -> PersistenceError {
        let failure = (error as? PersistenceError) ?? .sqlite(String(describing: error))
        state.withLock { $0.failure = failure }
        return failure
    }

    /// Runs the operations `operations` (a ``CommitPlan``'s) as one statement.
    private func run(_ operations: String) async throws {
        _ = try await connection.query(
            """
            INSERT INTO commit_operations (operation, path, value)
            SELECT value->>0, value->>1, value->2 FROM json_each(?1)
            """, [.text(operations)])
    }
}
