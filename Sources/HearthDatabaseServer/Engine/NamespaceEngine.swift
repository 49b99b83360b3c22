import HearthCore
import HearthEdge
import HearthRules
import Logging
import NIOCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The single serialised writer of one namespace.
///
/// Every write — set, multi-path update, push, compare-and-set — is validated and applied to the
/// in-memory tree here, one at a time, which gives all clients one total order. A write's caller
/// resumes only after its batch is durable: writes that arrive while a commit is in flight are
/// committed together in the next one (group commit). Listener events are computed when a write
/// is applied, encoded once per location, query and format, and delivered, in write order, once
/// the write is durable.
///
/// Readers get immutable snapshots of the tree, which never change under them. The tree is read
/// from the namespace's file page by page as it is used (``PageSource``); pages are read on this
/// actor's own thread only, and every node handed out is resident (``Node/resident()``).
public actor NamespaceEngine {
    /// The namespace's name (`my-project-default-rtdb`).
    public nonisolated let name: String
    /// Where this engine runs (``EngineThreads``): reading a page blocks its thread.
    private nonisolated let executor = EngineThreads.next()

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// The tree; written on this actor only (``stage(_:by:)``, and on a relay's replica by
    /// ``applyReplicated(_:)``).
    var root: Node
    private var rules: RulesDocument
    /// Whether each denial is logged with the rules that decided it (development mode).
    private let explainsDenials: Bool
    /// Where reads, writes and denials are counted.
    private let metrics: TrafficMetrics
    /// The durable store; `nil` until the first commit of a namespace that had no file, so that
    /// reading a namespace that does not exist creates nothing.
    private(set) var store: (any NamespaceStorage)?
    /// Creates the store at the first commit of a namespace that had none.
    private let createStore: StoreFactory
    /// Told when the store is lost for good (``NamespaceStorage/observeLoss(_:)``): the
    /// namespace must be opened anew.
    private nonisolated let onStoreLost: @Sendable (NamespaceEngine) -> Void
    /// What the connections using this engine do when it closes: end, so that their clients
    /// reconnect to the namespace opened anew (``whenClosed(_:)``).
    private nonisolated let closeHandlers = Mutex<CloseHandlers>(CloseHandlers())
    /// Whether the store was lost: the engine is on its way out, and no request may use it.
    nonisolated let isLost = Atomic<Bool>(false)
    /// Whether a commit was refused because another node took the namespace over: nothing
    /// this engine commits can land any more.
    nonisolated let isFenced = Atomic<Bool>(false)
    /// The locations listened to, whose pages stay loaded.
    private let listened: ListenedPaths
    private let logger: Logger
    private var pushIDs = PushIDGenerator()
    var indexes: IndexCache
    var listeners: ListenerRegistry
    /// Who follows the locations each durable batch changed (the console's data view).
    var changeFeed = ChangeFeed()
    /// The relays following this namespace's durable batches, or, on a relay, the writes
    /// waiting for the replica to catch up (``Replication``).
    var replication: Replication

    private(set) var pendingBatch = PendingBatch()
    /// The writes of the batch being committed: applied, but maybe not yet in the log.
    private(set) var committingWrites: [LoggedWrite] = []
    /// The sequence number of the last write the log holds.
    /// On a relay's replica, the sequence number of the last write replicated.
    var durableSequence: Int64
    /// The time of the last write applied: the log's times never go back, even when the
    /// clock does, so that history is in time order as it is in write order.
    private var lastWriteTime: Int64
    private var isCommitting = false
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var failure: String?
    private var creatingStore: Task<any NamespaceStorage, any Error>?
    /// The sequence number the log gives the last write staged: each write is one row of the
    /// log, numbered on from the store's last.
    private var stagedSequence: Int64
    /// For each location written at or below by a write staged, the sequence number of the
    /// last such write; for each location a write replaced, the last such write. Once a
    /// compaction folds them into the leaf rows, what they wrote becomes pages the cache may
    /// drop (``folded(through:)``).
    private var lastTouched: [DatabasePath: Int64] = [:]
    private var lastReplaced: [DatabasePath: Int64] = [:]
    /// Objects folded into the leaf rows, deepest first, waiting to become pages.
    private var foldedObjects: [DatabasePath] = []
    /// Set by ``close()``: no store may be created afterwards.
    private var isClosed = false

    init(
        name: String, store: (any NamespaceStorage)?, createStore: @escaping StoreFactory,
        onStoreLost: @escaping @Sendable (NamespaceEngine) -> Void = { _ in }, listened: ListenedPaths, root: Node,
        rules: RulesDocument, explainsDenials: Bool, replicable: Bool = false, metrics: TrafficMetrics = TrafficMetrics(),
        logger: Logger
    ) {
        self.name = name
        self.replication = Replication(durableTree: replicable ? root : nil)
        self.store = store
        self.createStore = createStore
        self.onStoreLost = onStoreLost
        self.listened = listened
        self.durableSequence = store?.lastSequence ?? 0
        self.stagedSequence = store?.lastSequence ?? 0
        self.lastWriteTime = store?.lastLoggedTime ?? 0
        self.root = root
        self.rules = rules
        self.indexes = IndexCache()
        self.explainsDenials = explainsDenials
        self.metrics = metrics
        self.listeners = ListenerRegistry(count: metrics.listeners, listened: listened)
        self.logger = logger
        if let store { observe(store) }
    }

    /// Makes what `store`'s compactions fold into its leaf rows pages again, and passes on its
    /// loss.
    private nonisolated func observe(_ store: any NamespaceStorage) {
        store.observeFolds { [weak self] through in
            Task { await self?.folded(through: through) }
        }
        store.observeLoss { [weak self] in
            guard let self else { return }
            isLost.store(true, ordering: .releasing)
            onStoreLost(self)
        }
    }

    /// The handlers registered by ``whenClosed(_:)``.
    struct CloseHandlers {
        var handlers: [Int: @Sendable () -> Void] = [:]
        var next = 0
        var isClosed = false
    }

    /// Calls `handler` when this engine closes (the namespace was lost, or the server shuts
    /// down); returns the handler's number for ``forgetCloseHandler(_:)``, or `nil`, having called
    /// nothing, when the engine is closed already.
    nonisolated func whenClosed(_ handler: @escaping @Sendable () -> Void) -> Int? {
        closeHandlers.withLock { state in
            guard !state.isClosed else { return nil }
            state.next += 1
            state.handlers[state.next] = handler
            return state.next
        }
    }

    /// Forgets the close handler numbered `number` (its connection ended).
    nonisolated func forgetCloseHandler(_ number: Int) {
        _ = closeHandlers.withLock { $0.handlers.removeValue(forKey: number) }
    }

    /// Records the locations that `write`, just staged, touched and replaced: its objects, and
    /// the objects above them. Recorded before the write is even durable: the tree holds it
    /// from now on, and no fold reaches it yet.
    private func recordTouched(_ write: LoggedWrite) {
        stagedSequence += 1
        for change in write.changes {
            lastReplaced[change.path] = stagedSequence
            if case .object = change.after { lastTouched[change.path] = stagedSequence }
            var location = change.path
            while !location.isRoot {
                location = location.parent
                lastTouched[location] = stagedSequence
            }
        }
    }

    /// Objects that become pages in one turn of this actor; the rest wait for the next turns.
    private static let pagesPerTurn = 256
    /// Objects of fewer nodes stay in their parent's map: a page of its own would cost more
    /// than they do. They leave memory with their parent's page.
    private static let smallestPage = 32

    /// Queues each object the writes up to row `through` touched to become a page again (see
    /// ``makePages()``).
    private func folded(through: Int64) {
        guard store != nil else { return }
        lastReplaced = lastReplaced.filter { $0.value > through }
        let folded = lastTouched.filter { $0.value <= through }.keys
        guard !folded.isEmpty else { return }
        for location in folded { lastTouched[location] = nil }
        let wasIdle = foldedObjects.isEmpty
        foldedObjects = (foldedObjects + folded).sorted { $0.keys.count > $1.keys.count }
        if wasIdle { makePages() }
    }

    /// Makes up to ``pagesPerTurn`` of the objects folded a page again, loaded with what it
    /// holds, which the leaf rows now hold too: the cache may drop it. Deepest first, so that an
    /// object becomes a page of pages; an object of fewer than ``smallestPage`` nodes stays as
    /// it is. An object written again since, or below an object a later write replaced, holds
    /// newer data than the rows: it waits for that write's fold.
    private func makePages() {
        guard let pages = store?.pageSource else { return }
        for location in foldedObjects.prefix(Self.pagesPerTurn) {
            guard lastTouched[location] == nil,
                !sequence(first: location, next: { $0.isRoot ? nil : $0.parent }).dropFirst().contains(where: { lastReplaced[$0] != nil }),
                case .object(let children, let priority) = root.child(at: location), children.page == nil,
                Node.object(children, priority: priority).hasAtLeast(nodes: Self.smallestPage)
            else { continue }
            root = root.updatingChild(
                at: location, with: .object(ChildMap(paged: pages.page(at: location, holding: children)), priority: priority))
        }
        foldedObjects.removeFirst(min(Self.pagesPerTurn, foldedObjects.count))
        if !foldedObjects.isEmpty { Task { self.makePages() } }
    }

    /// The node at `path`, if the rules let `caller` read it with `query`: a query that orders
    /// without filtering reads the whole node, but its rules see the order the client asked for.
    public func read(_ path: DatabasePath, query: QueryParams? = nil, as caller: Caller) throws(DatabaseError) -> Node {
        try authorizeRead(path.priorityOwner ?? path, query: query, by: caller)
        return read(path)
    }

    /// The current tree, or the node at `path`, whatever the rules say: resident, so that the
    /// reader may take it anywhere.
    public func read(_ path: DatabasePath = .root) -> Node {
        node(at: path).resident()
    }

    /// The node at `path` of the current tree, pages included: only for use on this actor.
    private func node(at path: DatabasePath) -> Node {
        if let owner = path.priorityOwner { return Self.priority(of: root.child(at: owner)) }
        return root.child(at: path)
    }

    /// A node's priority as a leaf, or null.
    private static func priority(of node: Node) -> Node {
        node.priority.map { .value($0.leafValue) } ?? .null
    }

    /// The children at `path` that `query` selects, in index order, if the rules let `caller`
    /// run the query. Ordering by value or by a child needs an `.indexOn` in the rules.
    public func query(
        _ path: DatabasePath, _ query: QueryParams, as caller: Caller
    ) throws(DatabaseError) -> [(key: ChildKey, value: Node)] {
        guard path.priorityOwner == nil else { throw .invalidPath }
        try authorizeRead(path, query: query, by: caller)
        guard rules.isIndexed(query.index, at: path) else { throw .indexNotDefined(query.index, path) }
        return select(path, query).map { ($0.key, $0.value.resident()) }
    }

    private func select(_ path: DatabasePath, _ query: QueryParams) -> [(key: ChildKey, value: Node)] {
        let node = root.child(at: path)
        guard query.index != .key, case .object(let children, _) = node else {
            return QueryWindow.select(query, from: node)
        }
        let index = indexes.index(at: path, by: query.index, children: children)
        return QueryWindow.select(query, from: node, sortedIndex: index)
    }

    /// The window of `query` at `path`. An unindexed order sorts the children each time, and
    /// builds no index: only the indexes the rules declare are kept, so clients cannot make the
    /// server hold (or evict) indexes of their choosing.
    func window(_ path: DatabasePath, _ query: QueryParams, isUnindexed: Bool = false) -> Node {
        let selected = isUnindexed ? QueryWindow.select(query, from: root.child(at: path)) : select(path, query)
        return .build(children: selected.map { ($0.key, $0.value) })
    }

    // MARK: Writes

    /// Replaces the node at `path`. With a precondition, writes only when the current node
    /// satisfies it and otherwise returns the current node unchanged.
    public func set(
        _ path: DatabasePath, _ value: WriteValue, ifMatch precondition: WritePrecondition? = nil, as caller: Caller
    ) async throws(DatabaseError) -> SetOutcome {
        let outcome = try stageSet(path, value, ifMatch: precondition, as: caller)
        try await awaitDurability()
        return outcome
    }

    /// Applies a set now and calls `completion` once it and every write before it are durable,
    /// after their events went out: a realtime connection goes on with its next request while
    /// the commit runs, and answers this one from the completion.
    func set(
        _ path: DatabasePath, _ value: WriteValue, ifMatch precondition: WritePrecondition?, as caller: Caller,
        then completion: @escaping @Sendable (Result<WriteAcceptance, DatabaseError>) -> Void
    ) throws(DatabaseError) {
        let acceptance: WriteAcceptance =
            switch try stageSet(path, value, ifMatch: precondition, as: caller) {
            case .written: .written
            case .preconditionFailed: .preconditionFailed
            }
        whenDurable { error in completion(error.map { .failure($0) } ?? .success(acceptance)) }
    }

    /// Rules are checked before the precondition, so that a caller who may not write learns
    /// nothing of the current value.
    private func stageSet(
        _ path: DatabasePath, _ value: WriteValue, ifMatch precondition: WritePrecondition?, as caller: Caller
    ) throws(DatabaseError) -> SetOutcome {
        try checkWritable()
        let write = QueuedWrite.set(path, value)
        let timestamp = Self.now()
        guard let after = try resolve(write, timestamp: timestamp) else { return .written(.null) }
        try authorizeWrite(write, after: after, by: caller, now: timestamp)
        if let precondition, case let existing = node(at: path), !precondition.holds(for: existing) {
            return .preconditionFailed(current: existing.resident())
        }
        stage(write, after: after, by: caller)
        // The value a set writes comes wholly from the request, so it holds no page and is handed
        // out as it is: `read` would walk all of it looking for pages (seconds for an import).
        return .written(path.priorityOwner == nil ? after.child(at: path) : read(path))
    }

    /// Adds `value` under a new push ID below `path` and returns that ID.
    public func push(_ path: DatabasePath, _ value: WriteValue, as caller: Caller) async throws(DatabaseError) -> String {
        try checkWritable()
        guard path.priorityOwner == nil else { throw .invalidPath }
        let timestamp = Self.now()
        let key = pushIDs.next(timestamp: timestamp)
        let write = QueuedWrite.set(path.child(ChildKey(key)), value)
        guard let after = try resolve(write, timestamp: timestamp) else { return key }
        try authorizeWrite(write, after: after, by: caller, now: timestamp)
        stage(write, after: after, by: caller)
        try await awaitDurability()
        return key
    }

    /// Replaces each `(relative path, value)` below `path`, all or nothing.
    public func update(_ path: DatabasePath, _ entries: [(DatabasePath, WriteValue)], as caller: Caller) async throws(DatabaseError) {
        try stageUpdate(path, entries, as: caller)
        try await awaitDurability()
    }

    /// Applies an update now and calls `completion` once it is durable (see
    /// ``set(_:_:ifMatch:then:)``).
    func update(
        _ path: DatabasePath, _ entries: [(DatabasePath, WriteValue)], as caller: Caller,
        then completion: @escaping DurabilityHandler
    ) throws(DatabaseError) {
        try stageUpdate(path, entries, as: caller)
        whenDurable(completion)
    }

    private func stageUpdate(_ path: DatabasePath, _ entries: [(DatabasePath, WriteValue)], as caller: Caller) throws(DatabaseError) {
        try checkWritable()
        let write = QueuedWrite.update(path, entries)
        let timestamp = Self.now()
        guard let after = try resolve(write, timestamp: timestamp) else { return }
        try authorizeWrite(write, after: after, by: caller, now: timestamp)
        stage(write, after: after, by: caller)
    }

    /// Applies `writes` in order as one atomic batch, with server values resolved now, and
    /// waits until they are durable. A write that turns out invalid, or that the rules no longer
    /// allow `caller`, is skipped and logged: the writes were checked when they were queued
    /// (onDisconnect operations).
    public func apply(_ writes: [QueuedWrite], as caller: Caller) async throws(DatabaseError) {
        try checkWritable()
        let timestamp = Self.now()
        for write in writes {
            do {
                guard let after = try resolve(write, timestamp: timestamp) else { continue }
                try authorizeWrite(write, after: after, by: caller, now: timestamp)
                stage(write, after: after, by: caller)
            } catch {
                logger.warning(
                    "skipping a queued write", metadata: ["path": "\(logSafe: write.path)", "error": "\(logSafe: error.message)"])
            }
        }
        try await awaitDurability()
    }

    /// Checks that `write` is valid against the current tree and that the rules allow it to
    /// `caller`, without applying it.
    public func validate(_ write: QueuedWrite, as caller: Caller) throws(DatabaseError) {
        let timestamp = Self.now()
        guard let after = try resolve(write, timestamp: timestamp) else { return }
        try authorizeWrite(write, after: after, by: caller, now: timestamp)
    }

    /// The tree after `write`, or `nil` when the write changes nothing (an empty update).
    private func resolve(_ write: QueuedWrite, timestamp: Int64) throws(DatabaseError) -> Node? {
        try write.applied(to: root, timestamp: timestamp)
    }

    private func checkWritable() throws(DatabaseError) {
        if let failure { throw .unavailable(failure) }
    }

    static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    // MARK: Rules

    /// The rules document in force.
    public func currentRules() -> RulesDocument { rules }

    /// Replaces the rules document, durably (`PUT /.settings/rules.json`).
    public func replaceRules(_ document: RulesDocument) async throws(DatabaseError) {
        try checkWritable()
        do {
            try await durableStore().setSetting(Self.rulesSetting, document.source)
        } catch {
            throw .unavailable(String(describing: error))
        }
        useRules(document)
        replication.publish(rules: document.source)
    }

    /// The rules document stored with the namespace, or `nil` when it has none of its own.
    func storedRules() async throws -> String? {
        try await durableStore().setting(Self.rulesSetting)
    }

    /// Enforces `document` from now on without storing it (it comes from the rules file).
    /// Listeners that may no longer read are revoked.
    public func useRules(_ document: RulesDocument) {
        rules = document
        revokeUnreadable(listeners.ruledListeners)
    }

    static let rulesSetting = "rules"

    /// Throws `permissionDenied` unless the rules let `caller` read `path` with `query`.
    /// Every read, query and listen passes here, so it is where reads are counted.
    private func authorizeRead(_ path: DatabasePath, query: QueryParams?, by caller: Caller) throws(DatabaseError) {
        metrics.databaseReads.increment()
        guard case .client(let auth) = caller else { return }
        let request = RuleRequest(auth: auth, now: Self.now())
        guard !rules.checkRead(path, query: query, by: request, tree: root).isAllowed else { return }
        throw denial(of: "read", at: [path], location: path, auth: auth, write: nil, missing: ".read") {
            rules.checkRead(path, query: query, by: request, tree: root, explain: true)
        }
    }

    /// Throws `permissionDenied` unless the rules let `caller` make `write`, which turns the
    /// current tree into `after`.
    private func authorizeWrite(_ write: QueuedWrite, after: Node, by caller: Caller, now: Int64) throws(DatabaseError) {
        guard case .client(let auth) = caller else { return }
        let locations = write.replacedLocations
        let request = RuleRequest(auth: auth, now: now)
        guard !rules.checkWrite(locations, by: request, before: root, after: after).isAllowed else { return }
        throw denial(of: "write", at: locations, location: write.path, auth: auth, write: write, missing: ".write") {
            rules.checkWrite(locations, by: request, before: root, after: after, explain: true)
        }
    }

    /// The error for a denied operation, counted at `location`. The rules are evaluated again,
    /// explaining, only when the denial is logged (development mode), the requests feed is
    /// followed, or the caller's token asks for security debugging (a `debug: true` claim).
    private func denial(
        of operation: String, at paths: [DatabasePath], location: DatabasePath, auth: JSONValue, write: QueuedWrite?,
        missing: String, explain: () -> RuleDecision
    ) -> DatabaseError {
        metrics.denials.count(product: "database", path: "\(name):\(location)")
        let wantsDebug = auth["token"]?["debug"] == .bool(true) || auth["debug"] == .bool(true)
        let trace = RequestTrace.current
        guard explainsDenials || wantsDebug || trace != nil else { return .permissionDenied(explanation: nil) }
        let decision = explain()
        trace?.noteDenial(
            DenialReport(
                namespace: name, operation: operation, paths: paths, auth: auth, decision: decision, write: write
            ).json)
        let locations = paths.map(\.description).joined(separator: ", ")
        let reasons =
            decision.evaluations.isEmpty
            ? ["no \(missing) rule on the path from the root grants access"] : decision.evaluations.map(\.description)
        if explainsDenials {
            logger.warning(
                "permission denied",
                metadata: [
                    "namespace": "\(logSafe: name)", "operation": "\(operation)", "path": "\(logSafe: locations)",
                    "auth": "\(logSafe: JSONWriter.string(auth))", "rules": "\(logSafe: reasons.joined(separator: "; "))",
                ])
        }
        let explanation = (["Attempt to \(operation) \(locations) with auth=\(JSONWriter.string(auth))"] + reasons)
        return .permissionDenied(explanation: wantsDebug ? explanation.joined(separator: "\n") : nil)
    }

    // MARK: Listeners

    /// Each location and query listened to here, with its number of listeners.
    public func listenerSummary() -> [ListenerSummary] {
        listeners.summary
    }

    /// Registers `sink` for changes at `location` under `query` and sends it, first, a put of
    /// the whole location or window — unless the hash of that data is `clientHash`, the hash of
    /// what the client already holds.
    ///
    /// A filtered query by value or by a child needs an `.indexOn` in the rules; without one it
    /// fails, or with `allowUnindexed` listens to the whole location instead (the client then
    /// filters, as Firebase's realtime clients do).
    public func addListener(
        at location: DatabasePath, query: QueryParams, format: some EventFormat, sink: any EventSink,
        unlessHash clientHash: String? = nil, allowUnindexed: Bool = false, as caller: Caller
    ) throws(DatabaseError) -> Listening {
        guard location.priorityOwner == nil else { throw .invalidPath }
        try authorizeRead(location, query: query, by: caller)
        let isUnindexed = !query.loadsAllData && !rules.isIndexed(query.index, at: location)
        if isUnindexed, !allowUnindexed { throw .indexNotDefined(query.index, location) }
        // The pages read for the first window stay loaded from the start, as the listener's do.
        listened.insert(location)
        defer { listened.remove(location) }
        let window = query.loadsAllData ? root.child(at: location) : window(location, query, isUnindexed: isUnindexed)
        // Without an index the client filters: it is sent the whole location.
        let initial = isUnindexed ? root.child(at: location) : window
        let id = listeners.add(
            location: location, query: query, isUnindexed: isUnindexed, format: format, window: window,
            member: .init(sink: sink, caller: caller, authorizedQuery: query))
        if clientHash != NodeHash.hash(initial),
            !sink.send(format.encode(.put(path: .root, node: initial), location: location, query: query))
        {
            listeners.remove(id)
        }
        return Listening(id: id, isUnindexed: isUnindexed)
    }

    public func removeListener(_ id: ListenerID) {
        listeners.remove(id)
    }

    /// Makes `caller` the caller of the listeners `ids` (a realtime connection signed in or out)
    /// and revokes those it may not read.
    public func changeCaller(of ids: [ListenerID], to caller: Caller) {
        for id in ids { listeners[id]?.caller = caller }
        revokeUnreadable(ids.compactMap { id in listeners[id].map { (id, id.location, $0) } })
    }

    /// Revokes, among `candidates`, the listeners whose read the rules no longer grant.
    private func revokeUnreadable(_ candidates: [(id: ListenerID, location: DatabasePath, member: ListenerRegistry.Member)]) {
        let now = Self.now()
        for (id, location, member) in candidates {
            guard case .client(let auth) = member.caller else { continue }
            let request = RuleRequest(auth: auth, now: now)
            guard !rules.checkRead(location, query: member.authorizedQuery, by: request, tree: root).isAllowed else { continue }
            listeners.remove(id)
            member.sink.revoke()
        }
    }

    // MARK: Durability and fan-out

    /// Makes `after`, the tree that `write` produced for `caller`, the current tree and records
    /// it for the next commit.
    private func stage(_ write: QueuedWrite, after: Node, by caller: Caller) {
        // A priority write changes the node that owns the priority.
        let kind: AppliedWrite.Kind
        switch write.kind {
        case .set: kind = .set
        case .update: kind = .merge(write.replacedLocations)
        }
        stage(AppliedWrite(path: write.path.priorityOwner ?? write.path, kind: kind, before: root, after: after), by: caller)
    }

    /// Makes `applied.after` the current tree and records the write (for the log, with the
    /// nodes it replaced unless they are large), its index updates and its listener events for
    /// the next commit.
    private func stage(_ applied: AppliedWrite, by caller: Caller) {
        metrics.databaseWrites.increment()
        root = applied.after
        indexes.apply(applied)
        let deliveries = listeners.deliveries(for: applied) { key in
            window(key.location, key.query, isUnindexed: key.isUnindexed)
        }
        let changes = LoggedWrite.changes(
            from: applied.before, to: applied.after, at: applied.touchedPaths, largeNodes: Self.largeSubtree)
        lastWriteTime = max(Self.now(), lastWriteTime)
        let logged = LoggedWrite(time: lastWriteTime, caller: caller, transport: WriteTransport.current, changes: changes)
        pendingBatch.stage(logged, shape: ReplicatedWrite.Shape(applied), deliveries: deliveries)
        recordTouched(logged)
        // A large node replaced is the one the log did not keep.
        if changes.contains(where: { $0.before == nil }) { releaseLater(applied.before) }
    }

    /// Replaced subtrees of at least this many nodes are freed off the actor.
    static let largeSubtree = 10_000

    /// Frees `tree` (the tree before a write that replaced a large subtree) on another thread:
    /// freeing millions of nodes takes seconds, which readers of the namespace would wait for.
    /// The task waits for a turn on this actor first, so that the job that staged the write,
    /// and its references to `tree`, are gone before the task lets go of the last one.
    private func releaseLater(_ tree: Node) {
        Task.detached(priority: .background) { [self] in
            await self.turn()
            withExtendedLifetime(tree) {}
        }
    }

    /// Does nothing, on this actor: awaiting it waits until the actor's current job is done.
    private func turn() {}

    /// Waits until every write staged so far is durable.
    private func awaitDurability() async throws(DatabaseError) {
        let error = await withCheckedContinuation { continuation in
            whenDurable { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }

    /// Calls `handler` once every write staged so far is durable and its events went out.
    private func whenDurable(_ handler: @escaping DurabilityHandler) {
        pendingBatch.addWaiter(handler)
        if !isCommitting {
            isCommitting = true
            Task { await self.runCommitLoop() }
        }
    }

    /// Commits batches until none is pending. While one commit is in flight the actor keeps
    /// applying writes, which then form the next batch.
    private func runCommitLoop() async {
        while !pendingBatch.isEmpty {
            await commitPendingBatch()
        }
        isCommitting = false
        for waiter in idleWaiters { waiter.resume() }
        idleWaiters = []
    }

    private func commitPendingBatch() async {
        let batch = pendingBatch
        pendingBatch = PendingBatch()
        let tree = root
        committingWrites = batch.writes
        defer { committingWrites = [] }
        do {
            if !batch.writes.isEmpty {
                durableSequence = try await durableStore().commit(batch.writes, paths: batch.paths, tree: tree)
            }
        } catch {
            logger.critical("commit failed; namespace is read-only until restart", metadata: ["error": "\(logSafe: error)"])
            if case PersistenceError.deposed = error { isFenced.store(true, ordering: .releasing) }
            failure = String(describing: error)
            batch.finish(.unavailable(String(describing: error)))
            return
        }
        deliver(batch.deliveries)
        changeFeed.publish(batch.paths)
        if !batch.writes.isEmpty, let previous = replication.publish(batch.replicated(through: durableSequence), tree: tree) {
            releaseLater(previous)
        }
        batch.finish(nil)
    }

    /// Sends each delivery's event to its listeners; a listener whose sink refuses it (its
    /// connection is gone or too far behind) is removed.
    func deliver(_ deliveries: [ListenerRegistry.Delivery]) {
        for delivery in deliveries {
            for (sink, id) in zip(delivery.sinks, delivery.listenerIDs) where !sink.send(delivery.event) {
                listeners.remove(id)
            }
        }
    }

    /// Refuses further writes, waits until every applied write is durable, and closes the store.
    func close() async {
        failure = "the server is shutting down"
        isClosed = true
        changeFeed.finish()
        replication.finish()
        if isCommitting {
            await withCheckedContinuation { idleWaiters.append($0) }
        }
        // A rules change that began before may still be creating the store; close the store it
        // creates even if its own continuation has not stored it yet.
        var openStore = store
        if let creatingStore, let created = try? await creatingStore.value { openStore = created }
        await openStore?.close()
        let handlers = closeHandlers.withLock { state in
            state.isClosed = true
            defer { state.handlers = [:] }
            return state.handlers.values
        }
        for handler in handlers { handler() }
    }

    /// The store, created on first need. Only the commit loop and rules changes call this, and a
    /// rules change waits for the commit loop's creation (and vice versa).
    private func durableStore() async throws -> any NamespaceStorage {
        if let store { return store }
        if let creatingStore { return try await creatingStore.value }
        guard !isClosed else { throw DatabaseError.unavailable("the server is shutting down") }
        let task = Task { [createStore] in try await createStore() }
        creatingStore = task
        defer { creatingStore = nil }
        let created = try await task.value
        store = created
        observe(created)
        return created
    }
}

/// Creates a namespace's store, empty, at its first commit (``NamespaceEngine``).
typealias StoreFactory = @Sendable () async throws -> any NamespaceStorage

/// Called once a write is durable (`nil`), or with the reason it could not be committed.
public typealias DurabilityHandler = @Sendable (DatabaseError?) -> Void

/// What a conditional set requires of the current node.
public enum WritePrecondition: Sendable, Equatable {
    /// The REST ETag (`if-match`), `null_etag` for a missing node.
    case etag(String)
    /// The node hash (a realtime compare-and-set put), `""` for a missing node.
    case hash(String)

    func holds(for node: Node) -> Bool {
        switch self {
        case .etag(let etag): etag == ETag.of(node)
        case .hash(let hash): hash == NodeHash.hash(node)
        }
    }
}

/// A registered listener, and whether its query had to fall back to the whole location.
public struct Listening: Sendable {
    public let id: ListenerID
    /// The query orders by a value or child without an `.indexOn`; the whole location is sent.
    public let isUnindexed: Bool
}

/// The result of a (possibly conditional) set.
public enum SetOutcome: Sendable, Equatable {
    /// The node now stored.
    case written(Node)
    /// The condition did not hold; nothing was written. Carries the current node.
    case preconditionFailed(current: Node)
}

/// Writes applied but not yet durable.
struct PendingBatch {
    private(set) var writes: [LoggedWrite] = []
    /// How each write was made, for relays (``ReplicatedWrite``).
    private var shapes: [ReplicatedWrite.Shape] = []
    private(set) var paths: [DatabasePath] = []
    private(set) var deliveries: [ListenerRegistry.Delivery] = []
    private var waiters: [DurabilityHandler] = []

    var isEmpty: Bool { writes.isEmpty && waiters.isEmpty }

    mutating func stage(_ write: LoggedWrite, shape: ReplicatedWrite.Shape, deliveries: [ListenerRegistry.Delivery]) {
        writes.append(write)
        shapes.append(shape)
        paths.append(contentsOf: write.changes.lazy.map(\.path))
        self.deliveries.append(contentsOf: deliveries)
    }

    mutating func addWaiter(_ waiter: @escaping DurabilityHandler) {
        waiters.append(waiter)
    }

    /// The batch as relays receive it, its last write numbered `last`.
    func replicated(through last: Int64) -> ReplicatedBatch {
        ReplicatedBatch(
            lastSequence: last,
            writes: zip(shapes, writes).map { shape, write in
                ReplicatedWrite(shape: shape, changes: write.changes.map { ($0.path, $0.after) })
            })
    }

    /// Tells every waiter that the batch is durable (`nil`) or failed.
    func finish(_ error: DatabaseError?) {
        for waiter in waiters { waiter(error) }
    }
}
