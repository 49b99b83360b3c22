import HearthCore
import HearthEdge
import HearthRules
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Every namespace of one Hearth server, each kept by the server's ``NamespaceBackend``: its
/// SQLite file under `<data dir>/database/` (embedded), or PostgreSQL.
///
/// A namespace is opened on first use and closed again once it has been idle for a while (no
/// request, connection or listener holds it), so that open files and memory stay bounded however
/// many namespaces exist; the namespaces named to ``preload(_:)`` stay open. Opening an embedded
/// namespace reads no more than its root: its tree is read page by page as it is used, and the
/// pages of every namespace share one ``PageCache``, so that memory follows what is used rather
/// than what is stored. A namespace that does not exist yet is created by its first write;
/// reading or listening to it answers as an empty database and creates nothing. With
/// `servesOnlyExistingNamespaces` (production), only an admin's write creates one, and any other
/// use of a namespace that does not exist fails with ``DatabaseError/namespaceNotFound(_:)``.
public actor DatabaseService {
    private let backend: any NamespaceBackend
    /// The cluster's namespaces when they are kept in PostgreSQL: their engines can be
    /// replicated to relays.
    private let cluster: PostgresNamespaces?
    /// Whether a realtime client of a namespace another node owns is served here, from a
    /// replica (``realtimeNamespace(_:)``), rather than sent to the owner.
    private let relays: Bool
    private var rulesPolicy: RulesPolicy
    private let servesOnlyExistingNamespaces: Bool
    private let logger: Logger
    /// Where reads, writes, listeners and denials are counted.
    private let metrics: TrafficMetrics
    /// The open engines, readable without a hop onto this actor: every request looks one up.
    private let openEngines = Mutex<[String: OpenNamespace]>([:])
    private var opening: [String: Task<NamespaceEngine, any Error>] = [:]
    /// Engines being closed for idleness; a namespace reopens only once its close is done.
    private var closing: [String: Task<Void, Never>] = [:]
    /// Namespaces kept open however long they are idle (the default namespace).
    private var pinned: Set<String> = []
    private var isClosed = false
    /// Where the pages of every namespace count.
    package let cache: PageCache

    /// An open engine and when a request last looked it up.
    private struct OpenNamespace {
        var engine: NamespaceEngine
        var lastUse: ContinuousClock.Instant
        /// On a relay, the link to the owner that keeps the engine, a replica, current.
        var link: OwnerLink?
    }
    private var openingReplicas: [String: Task<(NamespaceEngine, OwnerLink), any Error>] = [:]

    /// Serves namespaces stored under `dataDirectory` with the rules `rulesPolicy` gives them.
    package init(
        dataDirectory: String, rulesPolicy: RulesPolicy = .development, servesOnlyExistingNamespaces: Bool = false,
        storeOptions: NamespaceStoreOptions = .init(), metrics: TrafficMetrics = TrafficMetrics(), logger: Logger
    ) {
        let cache = PageCache(capacity: storeOptions.cacheBytes, metrics: metrics)
        self.init(
            backend: EmbeddedNamespaces(
                dataDirectory: dataDirectory, options: storeOptions, cache: cache, metrics: metrics, logger: logger),
            cluster: nil, relays: false, cache: cache, rulesPolicy: rulesPolicy, servesOnlyExistingNamespaces: servesOnlyExistingNamespaces,
            metrics: metrics,
            logger: logger)
    }

    /// Serves namespaces stored in PostgreSQL by `postgres`, with the rules `rulesPolicy` gives
    /// them; with `relays`, serves the realtime clients of namespaces other nodes own too.
    package init(
        postgres: PostgresNamespaces, relays: Bool = false, rulesPolicy: RulesPolicy = .development,
        servesOnlyExistingNamespaces: Bool = false, metrics: TrafficMetrics = TrafficMetrics(), logger: Logger
    ) {
        self.init(
            backend: postgres, cluster: postgres, relays: relays, cache: PageCache(capacity: 0, metrics: metrics),
            rulesPolicy: rulesPolicy,
            servesOnlyExistingNamespaces: servesOnlyExistingNamespaces, metrics: metrics, logger: logger)
    }

    private init(
        backend: any NamespaceBackend, cluster: PostgresNamespaces?, relays: Bool, cache: PageCache, rulesPolicy: RulesPolicy,
        servesOnlyExistingNamespaces: Bool, metrics: TrafficMetrics, logger: Logger
    ) {
        self.backend = backend
        self.cluster = cluster
        self.relays = relays
        self.cache = cache
        self.rulesPolicy = rulesPolicy
        self.servesOnlyExistingNamespaces = servesOnlyExistingNamespaces
        self.metrics = metrics
        self.logger = logger
    }

    /// Makes `document`, read from the rules file, the rules of every namespace, open or not.
    public func useFileRules(_ document: RulesDocument) async {
        rulesPolicy.fileRules = document
        for engine in openEngines.withLock({ $0.values.map(\.engine) }) {
            await engine.useRules(document)
        }
    }

    /// Keeps the namespaces in `names` open however long they are idle, and starts loading
    /// those that exist (replaying a journal left by the last run) without waiting for them: the
    /// port opens at once, a request to one of them waits for its load alone, and everything else
    /// is served meanwhile. A namespace that fails to load is logged, and its requests get the
    /// error. Other namespaces open on first use.
    public func preload(_ names: [String]) {
        pinned.formUnion(names)
        for name in names {
            Task {
                do {
                    guard try await backend.exists(name) else { return }
                    _ = try await namespace(name, for: .admin, writes: false)
                } catch DatabaseError.servedElsewhere {
                    // Another node of the cluster serves it.
                } catch  where !isClosed {
                    logger.critical(
                        "namespace could not be loaded", metadata: ["namespace": "\(logSafe: name)", "error": "\(logSafe: error)"])
                }
            }
        }
    }

    /// The names of the namespaces that exist.
    public nonisolated func namespaceNames() async throws -> [String] {
        try await backend.names()
    }

    /// Creates namespace `name` unless it exists (`hearth database:create`); whether it was new.
    public func createNamespace(_ name: String) async throws -> Bool {
        guard NamespaceFiles.isValidName(name) else { throw DatabaseError.invalidNamespace(name) }
        return try await backend.create(name)
    }

    /// Records that the node said to own namespace `name` did not answer: the next use of the
    /// namespace asks PostgreSQL anew, and takes the namespace over if that node is dead.
    public nonisolated func ownerUnreachable(_ name: String) {
        backend.forgetOwner(of: name)
    }

    /// Why the database cannot take writes now (its durable log failed or is closed), or `nil`
    /// when it can: a check cheap enough for every probe of `/readyz`.
    public func unavailability() async -> String? {
        await backend.unavailability()
    }

    /// Makes the store ready now, rather than at the first use of a namespace: a server whose
    /// store cannot be used (a log archive missing, locked or another history's; PostgreSQL out
    /// of reach) refuses to start.
    public func prepare() async throws {
        try await backend.prepare()
    }

    /// How many namespaces are open now.
    public nonisolated var openNamespaceCount: Int {
        openEngines.withLock { $0.count }
    }

    /// The engine of namespace `name`, for `caller`, who `writes` to it or only reads.
    ///
    /// Throws ``DatabaseError/namespaceNotFound(_:)`` when the namespace does not exist and may
    /// not be created by this use (see the type's documentation).
    public nonisolated func namespace(_ name: String, for caller: Caller, writes: Bool) async throws -> NamespaceEngine {
        let creatable = writes && caller == .admin
        // In production an open namespace may still have no store: an admin's write opened it and
        // failed. Only its creator may use it until a write creates it.
        if servesOnlyExistingNamespaces, !creatable, try await !backend.exists(name) {
            guard NamespaceFiles.isValidName(name) else { throw DatabaseError.invalidNamespace(name) }
            throw DatabaseError.namespaceNotFound(name)
        }
        let clock = ContinuousClock()
        let open = openEngines.withLock { engines -> OpenNamespace? in
            guard let open = engines[name], !open.engine.isLost.load(ordering: .acquiring) else { return nil }
            engines[name]?.lastUse = clock.now
            return open
        }
        if let open {
            // A replica is for realtime clients only: everything else goes to the owner.
            if let link = open.link { throw DatabaseError.servedElsewhere(link.owner) }
            return open.engine
        }
        return try await openNamespace(name)
    }

    /// The engine a realtime client of namespace `name` reads and listens on, and where its
    /// writes go: the namespace's engine on its owner; on another node of a cluster serving
    /// relays, a replica of the namespace kept current by the owner, and the owner through the
    /// replica's link. Without relays, a namespace another node owns fails with
    /// ``DatabaseError/servedElsewhere(_:)``.
    nonisolated func realtimeNamespace(_ name: String) async throws -> (engine: NamespaceEngine, writer: any NamespaceWriter) {
        do {
            let engine = try await namespace(name, for: .signedOut, writes: false)
            return (engine, engine)
        } catch DatabaseError.servedElsewhere(let owner) where relays {
            let (replica, link) = try await relay(name, owner: owner)
            return (replica, RelayWriter(link: link, replica: replica))
        }
    }

    /// The secret relays present to owners (``RelayEndpoint``); only a cluster has one.
    package nonisolated func relaySecret() async throws -> String {
        guard let cluster else { throw DatabaseError.unavailable("relays need a cluster (--postgres)") }
        return try await cluster.relaySecret()
    }

    /// Where the onDisconnect writes of a realtime session of namespace `name` go when the
    /// session's engine was dropped (a lost store, a relay's broken link): the namespace opened
    /// anew here, or in a cluster the node that owns it now, without a replica.
    nonisolated func onDisconnectWriter(_ name: String) async throws -> any NamespaceWriter {
        do {
            return try await namespace(name, for: .signedOut, writes: false)
        } catch DatabaseError.servedElsewhere(let owner) where cluster != nil {
            let link = OwnerLink(namespace: name, owner: owner, secret: try await relaySecret(), logger: logger)
            return RelayWriter(link: link, replica: nil)
        }
    }

    /// The replica of namespace `name`, owned by the node at `owner`, and its link.
    private func relay(_ name: String, owner: String) async throws -> (NamespaceEngine, OwnerLink) {
        if let open = openEngines.withLock({ $0[name] }), let link = open.link, !open.engine.isLost.load(ordering: .acquiring) {
            return (open.engine, link)
        }
        guard !isClosed else { throw DatabaseError.unavailable("the server is shutting down") }
        if let task = openingReplicas[name] { return try await task.value }
        let task = Task { try await openReplica(name, owner: owner) }
        openingReplicas[name] = task
        defer { openingReplicas[name] = nil }
        let (replica, link) = try await task.value
        guard !isClosed, openEngines.withLock({ $0[name] == nil }) else {
            await replica.close()
            // Another engine of the namespace is in the table (one being dropped): the client is
            // sent to the owner, as without relays, rather than told to stop reconnecting.
            if isClosed { throw DatabaseError.unavailable("the server is shutting down") }
            throw DatabaseError.servedElsewhere(owner)
        }
        openEngines.withLock { $0[name] = OpenNamespace(engine: replica, lastUse: ContinuousClock().now, link: link) }
        // A link that failed before its replica was in the table found nothing to drop.
        if link.hasFailed { linkFailed(name, link) }
        return (replica, link)
    }

    /// Opens a replica of namespace `name` from its owner at `owner`.
    private func openReplica(_ name: String, owner: String) async throws -> (NamespaceEngine, OwnerLink) {
        guard let cluster else { throw DatabaseError.servedElsewhere(owner) }
        let link = OwnerLink(namespace: name, owner: owner, secret: try await cluster.relaySecret(), logger: logger)
        let (rules, explainsDenials, metrics, logger) = (
            rulesPolicy.fileRules ?? rulesPolicy.fallback, rulesPolicy.explainsDenials, metrics, logger
        )
        let replica: NamespaceEngine
        do {
            replica = try await link.start(
                makeReplica: {
                    // Never asked to stage a write (``namespace(_:for:writes:)`` hands replicas out
                    // to no one): it has no store, and should one be needed, the owner has it.
                    NamespaceEngine(
                        name: name, store: nil, createStore: { throw DatabaseError.servedElsewhere(owner) },
                        listened: ListenedPaths(), root: .null, rules: rules, explainsDenials: explainsDenials,
                        metrics: metrics, logger: logger)
                },
                useRules: { [weak self] replica, source in await self?.useStoredRules(source, on: replica) },
                onFailure: { [weak self] in self?.linkFailed(name, link) })
        } catch {
            link.stop()
            // The owner is gone or moving: the next use asks PostgreSQL anew.
            backend.forgetOwner(of: name)
            throw DatabaseError.servedElsewhere(owner)
        }
        _ = replica.whenClosed { link.stop() }
        return (replica, link)
    }

    /// Makes the rules the owner enforces, `source`, those of `replica`, unless this node
    /// enforces a rules file. Rules that do not compile here (nodes of different versions)
    /// leave the replica refusing every read, rather than enforcing others.
    private func useStoredRules(_ source: String, on replica: NamespaceEngine) async {
        guard rulesPolicy.fileRules == nil else { return }
        do {
            await replica.useRules(try RulesDocument(source: source))
        } catch {
            logger.error(
                "the owner's rules do not compile here; the replica refuses every read",
                metadata: ["namespace": "\(logSafe: replica.name)"])
            await replica.useRules(.closed)
        }
    }

    /// Drops the replica of namespace `name` whose `link` failed: marked lost at once (so that
    /// its sessions' onDisconnect writes go through the namespace opened anew), then closed; its
    /// clients reconnect, and their next use asks PostgreSQL who owns the namespace now.
    private nonisolated func linkFailed(_ name: String, _ link: OwnerLink) {
        backend.forgetOwner(of: name)
        guard let open = openEngines.withLock({ $0[name] }), open.link === link else { return }
        open.engine.isLost.store(true, ordering: .releasing)
        storeLost(open.engine)
    }

    private func openNamespace(_ name: String) async throws -> NamespaceEngine {
        if let open = openEngines.withLock({ $0[name] }) {
            guard open.engine.isLost.load(ordering: .acquiring) else {
                if let link = open.link { throw DatabaseError.servedElsewhere(link.owner) }
                return open.engine
            }
            await evict(open.engine)
        }
        guard NamespaceFiles.isValidName(name) else { throw DatabaseError.invalidNamespace(name) }
        guard !isClosed else { throw DatabaseError.unavailable("the server is shutting down") }
        if let task = opening[name] { return try await task.value }
        let task = Task {
            await closing[name]?.value
            return try await open(name)
        }
        opening[name] = task
        defer { opening[name] = nil }
        let engine = try await task.value
        // `close()` may have swept the open engines while this one was opening.
        guard !isClosed else {
            await engine.close()
            throw DatabaseError.unavailable("the server is shutting down")
        }
        // Its store may have been lost while it opened, before it was in the table to evict.
        guard !engine.isLost.load(ordering: .acquiring) else {
            await engine.close()
            throw DatabaseError.unavailable("the namespace's store was lost while it opened")
        }
        openEngines.withLock { $0[name] = OpenNamespace(engine: engine, lastUse: ContinuousClock().now) }
        return engine
    }

    private func open(_ name: String) async throws -> NamespaceEngine {
        let listened = ListenedPaths()
        // A namespace that does not exist starts empty; its first commit creates its store.
        let opened: (store: any NamespaceStorage, tree: Node, rules: RulesDocument)?
        do {
            opened = try await openStore(name, listened: listened)
        } catch PersistenceError.ownedElsewhere(_, let address) {
            throw DatabaseError.servedElsewhere(address)
        }
        return NamespaceEngine(
            name: name, store: opened?.store, createStore: backend.storeFactory(name, listened: listened),
            onStoreLost: { [weak self] engine in self?.storeLost(engine) }, listened: listened,
            root: opened?.tree ?? .null, rules: opened?.rules ?? rulesPolicy.fileRules ?? rulesPolicy.fallback,
            explainsDenials: rulesPolicy.explainsDenials, replicable: cluster != nil, metrics: metrics, logger: logger)
    }

    /// Opens the store of namespace `name` and its tree (its root read, the journal a crash left
    /// replayed), with the rules it enforces; `nil` when the namespace does not exist.
    private func openStore(
        _ name: String, listened: ListenedPaths
    ) async throws -> (store: any NamespaceStorage, tree: Node, rules: RulesDocument)? {
        let clock = ContinuousClock()
        let start = clock.now
        guard let store = try await backend.open(name, listened: listened) else { return nil }
        do {
            var rules = rulesPolicy.fileRules ?? rulesPolicy.fallback
            if rulesPolicy.fileRules == nil, let storedRules = try await store.setting(NamespaceEngine.rulesSetting) {
                rules = try RulesDocument(source: storedRules)
            }
            let opened = try await store.openTree()
            logger.info(
                "opened namespace",
                metadata: ["namespace": "\(logSafe: name)", "replayed": "\(opened.replayed)", "duration": "\(clock.now - start)"])
            return (store, opened.tree, rules)
        } catch {
            await store.close()
            throw error
        }
    }

    private nonisolated func storeLost(_ engine: NamespaceEngine) {
        Task { await evict(engine) }
    }

    /// Closes `engine`, whose store was lost, unless it was closed already: its connections end,
    /// and the next use opens the namespace anew (or is sent to the node that owns it now).
    private func evict(_ engine: NamespaceEngine) async {
        let name = engine.name
        let removed = openEngines.withLock { engines in
            guard engines[name]?.engine === engine else { return false }
            engines[name] = nil
            return true
        }
        guard removed else { return }
        logger.warning("namespace store lost; closing it to open it anew", metadata: ["namespace": "\(logSafe: name)"])
        let previous = closing[name]
        let task = Task {
            await previous?.value
            await engine.close()
        }
        closing[name] = task
        await task.value
        if closing[name] == task { closing[name] = nil }
    }

    /// The listeners of every open namespace, by location and query.
    public nonisolated func listenerSummaries() async -> [(namespace: String, listeners: [ListenerSummary])] {
        var summaries: [(namespace: String, listeners: [ListenerSummary])] = []
        for engine in openEngines.withLock({ $0.values.map(\.engine) }) {
            summaries.append((engine.name, await engine.listenerSummary()))
        }
        return summaries
    }

    /// Closes every namespace that no request has looked up for `idleTime` and that nothing
    /// holds any more: no connection, event stream, request or commit in flight.
    public func closeIdleNamespaces(idleFor idleTime: Duration) async {
        let now = ContinuousClock().now
        let idle = openEngines.withLock { engines -> [(String, NamespaceEngine)] in
            var idle: [(String, NamespaceEngine)] = []
            // The keys are copied first: iterating the table while checking its engines would
            // share its storage, and every engine would look held.
            for name in Array(engines.keys) where !pinned.contains(name) {
                guard now - engines[name]!.lastUse >= idleTime,
                    // Only the table holds the engine: whoever uses one holds a reference, and
                    // new references come only from this table, under this lock.
                    isKnownUniquelyReferenced(&engines[name]!.engine)
                else { continue }
                idle.append((name, engines[name]!.engine))
            }
            for (name, _) in idle { engines[name] = nil }
            return idle
        }
        let closes = idle.map { name, engine in (name, Task { await engine.close() }) }
        for (name, task) in closes { closing[name] = task }
        for (name, task) in closes {
            await task.value
            closing[name] = nil
        }
        if !idle.isEmpty {
            logger.debug("closed idle namespaces", metadata: ["count": "\(idle.count)"])
        }
    }

    /// Refuses to open namespaces from now on, finishes every pending commit and closes every
    /// store.
    public func close() async {
        isClosed = true
        for task in opening.values { _ = try? await task.value }
        for task in closing.values { await task.value }
        let engines = openEngines.withLock { engines in
            defer { engines = [:] }
            return engines.values.map(\.engine)
        }
        for engine in engines { await engine.close() }
        await backend.close()
    }
}
