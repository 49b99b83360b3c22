import HearthCore
import Logging
import PostgresNIO
import Synchronization

/// One namespace kept in PostgreSQL (``PostgresSchema``) by the node that owns it.
///
/// Each batch is one call of `hearth_commit`, one transaction: the epoch checked, the log rows
/// appended and the leaf rows of the locations written rewritten from the tree. The writers are
/// answered once it has committed. The tree is held whole in memory; opening reads it from the
/// leaf rows, which always match the log. While open, the store renews its lease every third of
/// its length. A store that finds another owner in place, or whose commit failed, is lost: it
/// refuses every write from then on, and tells its observers, so that the namespace is opened
/// anew from what PostgreSQL holds (``DatabaseService``).
final class PostgresNamespaceStore: NamespaceStorage {
    static let historyBeginsSetting = "history_begins"
    /// Log rows beyond those kept are deleted once this many have gathered (fewer when the log
    /// keeps fewer than eight times as many).
    static let largestTrimStep = 1024

    let name: String
    let namespaces: PostgresNamespaces
    /// The ownership this store holds.
    let epoch: Int64
    private let logger: Logger
    private let state: Mutex<State>
    let lastLoggedTime: Int64
    /// Whether the namespace had never been written when claimed: its tree and settings were
    /// empty then.
    private let wasEmpty: Bool
    private let renewal: Mutex<Task<Void, Never>?> = Mutex(nil)

    private struct State {
        /// The sequence number of the next write.
        var nextSequence: Int64
        /// The log keeps no row up to this one.
        var trimmedThrough: Int64
        /// The size of each row the log keeps.
        var retention: LogRetention
        /// When the newest claim, renewal or commit that extended the lease was sent: the lease
        /// runs at least until a lease's length after it, and no longer than that unless renewed.
        var leaseConfirmedAt: ContinuousClock.Instant
        /// Commits under way: while one is, the namespace's row is locked by its transaction,
        /// no other node can claim it, and renewals wait.
        var commitsInFlight = 0
        /// Why no write is taken any more (another node owns the namespace, or a commit failed).
        var failure: PersistenceError?
        /// Whether anything was written since the claim: a commit, or a setting.
        var hasWritten = false
        /// Told once when the store is lost (``observeLoss(_:)``).
        var lossObservers: [@Sendable () -> Void] = []
    }

    var pageSource: PageSource? { nil }

    var lastSequence: Int64 {
        state.withLock { $0.nextSequence } - 1
    }

    private init(
        name: String, namespaces: PostgresNamespaces, epoch: Int64, isEmpty: Bool, state: State, lastLoggedTime: Int64, logger: Logger
    ) {
        self.name = name
        self.wasEmpty = isEmpty
        self.namespaces = namespaces
        self.epoch = epoch
        self.state = Mutex(state)
        self.lastLoggedTime = lastLoggedTime
        self.logger = logger
    }

    /// Claims namespace `name` for this node (creating its row if needed) and opens its store;
    /// throws ``PersistenceError/ownedElsewhere(namespace:address:)`` while another node's lease
    /// on it runs.
    static func claim(_ name: String, in namespaces: PostgresNamespaces, logger: Logger) async throws -> PostgresNamespaceStore {
        // Holding the namespace's lock, while its row says that its owner held it, proves that
        // owner dead: the namespace is taken over at once, however long its lease still runs.
        let holdsLock = await namespaces.locks.tryLock(name, timeout: .seconds(1))
        let sent = ContinuousClock.now
        let claimed: (Bool, Int64, Int64, String?, Bool)?
        do {
            claimed = try await namespaces.run(
                "SELECT * FROM hearth_claim(\(name), \(namespaces.nodeID), \(namespaces.address), \(namespaces.leaseSeconds), \(holdsLock))"
            ) { rows in try rows.first.map { try $0.decode((Bool, Int64, Int64, String?, Bool).self) } }
        } catch {
            if holdsLock { namespaces.locks.unlock(name) }
            throw error
        }
        guard let (isClaimed, epoch, last, _, created) = claimed, isClaimed else {
            if holdsLock { namespaces.locks.unlock(name) }
            let address = claimed?.3 ?? "unknown"
            // An earlier process of this node (another identity, at the same address) still
            // holds the lease: sending the client to itself would loop.
            guard address != namespaces.address else {
                throw PersistenceError.postgres(
                    "namespace \(name) is leased to an earlier process at this node's address until its lease runs out")
            }
            throw PersistenceError.ownedElsewhere(namespace: name, address: address)
        }
        let retention = LogRetention(keptWrites: namespaces.keptWrites, keptBytes: namespaces.keptBytes)
        // A namespace never written has nothing more to read: opening it costs the claim alone.
        let store: PostgresNamespaceStore
        do {
            store =
                created
                ? try await load(
                    name, in: namespaces, epoch: epoch, last: last, retention: retention, claimedAt: sent, logger: logger)
                : PostgresNamespaceStore(
                    name: name, namespaces: namespaces, epoch: epoch, isEmpty: true,
                    state: State(nextSequence: last + 1, trimmedThrough: last, retention: retention, leaseConfirmedAt: sent, failure: nil),
                    lastLoggedTime: 0, logger: logger)
        } catch {
            namespaces.locks.unlock(name)
            throw error
        }
        store.startRenewing()
        logger.info("claimed namespace", metadata: ["namespace": "\(logSafe: name)", "epoch": "\(epoch)"])
        return store
    }

    /// The store of namespace `name`, just claimed at `epoch`, with what its log holds.
    private static func load(
        _ name: String, in namespaces: PostgresNamespaces, epoch: Int64, last: Int64, retention kept: LogRetention,
        claimedAt: ContinuousClock.Instant,
        logger: Logger
    ) async throws -> PostgresNamespaceStore {
        var retention = kept
        try await namespaces.run("SELECT seq, octet_length(entry) FROM hearth_log WHERE ns = \(name) ORDER BY seq") { rows in
            for row in rows {
                let (sequence, bytes) = try row.decode((Int64, Int32).self)
                retention.appended(sequence, bytes: Int(bytes))
            }
        }
        let (oldest, time) = try await namespaces.run(
            """
            SELECT (SELECT MIN(seq) FROM hearth_log WHERE ns = \(name)),
              GREATEST(
                COALESCE((SELECT time FROM hearth_log WHERE ns = \(name) ORDER BY seq DESC LIMIT 1), 0),
                COALESCE((SELECT value::bigint FROM hearth_settings WHERE ns = \(name) AND name = \(historyBeginsSetting)), 0))
            """
        ) { rows in try rows.first?.decode((Int64?, Int64).self) ?? (nil, Int64(0)) }
        return PostgresNamespaceStore(
            name: name, namespaces: namespaces, epoch: epoch, isEmpty: false,
            state: State(
                nextSequence: last + 1, trimmedThrough: (oldest ?? last + 1) - 1, retention: retention, leaseConfirmedAt: claimedAt,
                failure: nil),
            lastLoggedTime: time, logger: logger)
    }

    func openTree() async throws -> (tree: Node, replayed: Int) {
        if wasEmpty { return (.null, 0) }
        let tree = try await namespaces.run("SELECT path, value FROM hearth_leaves WHERE ns = \(name) ORDER BY path") { rows in
            var assembler = TreeAssembler()
            for row in rows {
                let (path, value) = try row.decode((String, String).self)
                let parsed: JSONValue
                do {
                    parsed = try JSONParser.parse(value)
                } catch {
                    throw PersistenceError.corruptRow(path)
                }
                try assembler.add(rowKey: path, leaf: LeafRows.leaf(parsed, rowKey: path))
            }
            return assembler.assemble()
        }
        return (tree, 0)
    }

    func commit(_ writes: [LoggedWrite], paths: [DatabasePath], tree: Node) async throws -> Int64 {
        let (first, trimmedThrough, kept) = try state.withLock { state throws(PersistenceError) in
            if let failure = state.failure { throw failure }
            return (state.nextSequence, state.trimmedThrough, state.retention)
        }
        let last = first + Int64(writes.count) - 1
        guard !writes.isEmpty else { return last }
        var batch = PostgresCommitBatch()
        batch.rewrite(Journal.outermost(paths), from: tree)
        var retention = kept
        for (offset, pair) in zip(WriteLog.rows(of: writes, maximumAfterBytes: .max).rows, writes).enumerated() {
            let sequence = first + Int64(offset)
            batch.appendLog(WriteLog.StoredRow(sequence: sequence, time: pair.1.time, text: pair.0.text))
            retention.appended(sequence, bytes: pair.0.text.utf8.count)
        }
        let bound = retention.deletionBound(foldedThrough: last)
        let step = Int64(max(1, min(Self.largestTrimStep, namespaces.keptWrites / 8)))
        let trim = bound - trimmedThrough >= step ? bound : 0
        if trim > 0 { retention.deleted(through: trim) }
        let sent = ContinuousClock.now
        state.withLock { $0.commitsInFlight += 1 }
        defer { state.withLock { $0.commitsInFlight -= 1 } }
        do {
            try await namespaces.run(
                """
                SELECT hearth_commit(
                  \(name), \(namespaces.nodeID), \(epoch), \(namespaces.leaseSeconds), \(last), \(batch.deletedSubtrees), \(batch.deletedRows),
                  \(batch.keys), \(batch.values), \(batch.sequences), \(batch.times), \(batch.entries), \(trim))
                """, timeout: namespaces.commitTimeout
            ) { _ in }
        } catch {
            // Whether or not the transaction committed, the tree in memory may now differ from
            // what PostgreSQL holds.
            lose(error)
            throw error
        }
        state.withLock { state in
            state.nextSequence = last + 1
            state.hasWritten = true
            state.leaseConfirmedAt = max(state.leaseConfirmedAt, sent)
            state.retention = retention
            if trim > 0 { state.trimmedThrough = trim }
        }
        return last
    }

    /// Runs `write`, a transaction of another product that this store's lease fences
    /// (``PostgresNamespaces/claim(_:)``), counted as a commit under way: it holds the lease's
    /// row, so nobody can claim it, and the lease is not given up for want of a renewal while
    /// it runs. `write` answers an instant the lease is known to run until a lease's length
    /// after, as a commit's end does; it is refused once the store is lost.
    func whileWriting(_ write: () async throws -> ContinuousClock.Instant) async throws {
        try state.withLock { state throws(PersistenceError) in
            if let failure = state.failure { throw failure }
            state.commitsInFlight += 1
        }
        defer { state.withLock { $0.commitsInFlight -= 1 } }
        let confirmed = try await write()
        state.withLock { $0.leaseConfirmedAt = max($0.leaseConfirmedAt, confirmed) }
    }

    /// The leaf rows always hold every write: there are no folds to observe.
    func observeFolds(_ observer: @escaping @Sendable (Int64) -> Void) {}

    func observeLoss(_ observer: @escaping @Sendable () -> Void) {
        let isLost = state.withLock { state in
            if state.failure == nil { state.lossObservers.append(observer) }
            return state.failure != nil
        }
        if isLost { observer() }
    }

    /// Refuses every write from now on for `failure`, and tells the observers, once.
    private func lose(_ failure: PersistenceError) {
        let observers = state.withLock { state in
            guard state.failure == nil else { return [@Sendable () -> Void]() }
            state.failure = failure
            defer { state.lossObservers = [] }
            return state.lossObservers
        }
        for observer in observers { observer() }
    }

    func logRows(before sequence: Int64, limit: Int) async throws -> [WriteLog.StoredRow] {
        try await namespaces.run(
            "SELECT seq, time, entry FROM hearth_log WHERE ns = \(name) AND seq < \(sequence) ORDER BY seq DESC LIMIT \(limit)"
        ) { rows in
            try rows.map { row in
                let (sequence, time, text) = try row.decode((Int64, Int64, String).self)
                return WriteLog.StoredRow(sequence: sequence, time: time, text: text)
            }
        }
    }

    func historyBegins() async throws -> Int64 {
        try await setting(Self.historyBeginsSetting).flatMap { Int64($0) } ?? 0
    }

    func setting(_ setting: String) async throws -> String? {
        if wasEmpty, !state.withLock({ $0.hasWritten }) { return nil }
        return try await namespaces.run("SELECT value FROM hearth_settings WHERE ns = \(name) AND name = \(setting)") { rows in
            try rows.first?.decode(String.self)
        }
    }

    /// Stores a setting, in a transaction that checks the ownership first as a commit does.
    func setSetting(_ setting: String, _ value: String) async throws {
        let stored = try await namespaces.run(
            """
            WITH owned AS (
              UPDATE hearth_namespaces SET created = true
              WHERE ns = \(name) AND owner = \(namespaces.nodeID) AND epoch = \(epoch)
              RETURNING ns
            )
            INSERT INTO hearth_settings (ns, name, value) SELECT ns, \(setting), \(value) FROM owned
            ON CONFLICT (ns, name) DO UPDATE SET value = EXCLUDED.value
            RETURNING 1
            """
        ) { $0.count > 0 }
        state.withLock { $0.hasWritten = true }
        guard stored else {
            let error = deposed()
            lose(error)
            throw error
        }
    }

    /// Stops renewing the lease and releases it, so that another node may claim the namespace
    /// at once.
    func close() async {
        // A renewal under way must not extend the lease after its release.
        let renewing = renewal.withLock { $0 }
        renewing?.cancel()
        await renewing?.value
        namespaces.locks.unlock(name)
        do {
            try await namespaces.run("SELECT hearth_renew(\(name), \(namespaces.nodeID), \(epoch), 0, false)") { _ in }
        } catch {
            logger.warning(
                "namespace lease could not be released; it expires on its own",
                metadata: ["namespace": "\(logSafe: name)", "error": "\(logSafe: error)"])
        }
    }

    /// Loses the store if `deadline` has passed since the lease was last confirmed, unless a
    /// commit is under way (its transaction holds the namespace's row: nobody can claim it, and
    /// its end extends the lease); whether it did.
    private func leaseRanOut(_ deadline: Duration) -> Bool {
        let ranOut = state.withLock { $0.commitsInFlight == 0 && ContinuousClock.now - $0.leaseConfirmedAt > deadline }
        guard ranOut else { return false }
        logger.error("namespace lease ran out unrenewed", metadata: ["namespace": "\(logSafe: name)"])
        lose(.deposed("the lease of namespace \(name) ran out unrenewed"))
        return true
    }

    private func deposed() -> PersistenceError {
        .deposed("namespace \(name) is no longer owned by this node at epoch \(epoch)")
    }

    /// Renews the lease every third of its length until closed or deposed. A renewal that
    /// fails (PostgreSQL out of reach) is tried again at the next turn; once the lease has run
    /// out unrenewed, another node may own the namespace, and the store is lost: this node stops
    /// serving what it holds, which may be stale from then on.
    private func startRenewing() {
        let interval = namespaces.lease / 3
        // Given up a little before the lease ends, so as to stop before another node may claim.
        let deadline = namespaces.lease - interval / 4
        let task = Task { [weak self] in
            while !Task.isCancelled {
                let confirmed = self?.state.withLock { $0.leaseConfirmedAt } ?? .now
                try? await Task.sleep(until: min(.now + interval, confirmed + deadline))
                guard let self, !Task.isCancelled else { return }
                if leaseRanOut(deadline) { return }
                do {
                    // The session holding the lock may have ended since (the row must not say
                    // it is held when it is not: another node would take a live owner over).
                    var holdsLock = namespaces.locks.holds(name)
                    if !holdsLock { holdsLock = await namespaces.locks.tryLock(name, timeout: interval) }
                    let sent = ContinuousClock.now
                    let renewed = try await namespaces.run(
                        "SELECT hearth_renew(\(name), \(namespaces.nodeID), \(epoch), \(namespaces.leaseSeconds), \(holdsLock))",
                        timeout: interval
                    ) { rows in try rows.first?.decode(Bool.self) ?? false }
                    if renewed { state.withLock { $0.leaseConfirmedAt = max($0.leaseConfirmedAt, sent) } }
                    if !renewed {
                        logger.error("namespace was claimed by another node", metadata: ["namespace": "\(logSafe: name)"])
                        lose(deposed())
                        return
                    }
                } catch {
                    logger.warning(
                        "namespace lease could not be renewed", metadata: ["namespace": "\(logSafe: name)", "error": "\(logSafe: error)"])
                }
                if leaseRanOut(deadline) { return }
            }
        }
        renewal.withLock { $0 = task }
    }
}
