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

/// Every namespace of one Hearth server, each stored in its SQLite file under
/// `<data dir>/database/`.
///
/// A namespace is opened on first use and closed again once it has been idle for a while (no
/// request, connection or listener holds it), so that open files and memory stay bounded however
/// many namespaces exist; the namespaces named to ``preload(_:)`` stay open. Opening a namespace
/// reads no more than its root: its tree is read page by page as it is used, and the pages of
/// every namespace share one ``PageCache``, so that memory follows what is used rather than
/// what is stored. A namespace that has no file yet is created by its first write; reading or listening to it answers as an empty
/// database and creates nothing. With `servesOnlyExistingNamespaces` (production), only an
/// admin's write creates one, and any other use of a namespace that does not exist fails with
/// ``DatabaseError/namespaceNotFound(_:)``.
public actor DatabaseService {
    private let files: NamespaceFiles
    /// How each namespace's store keeps its journal and history.
    private let storeOptions: NamespaceStoreOptions
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
    /// The node's durable log, opened by the first namespace opened (``durableLog()``).
    private var openingLog: Task<NodeLog, any Error>?

    /// An open engine and when a request last looked it up.
    private struct OpenNamespace {
        var engine: NamespaceEngine
        var lastUse: ContinuousClock.Instant
    }

    /// Serves namespaces stored under `dataDirectory` with the rules `rulesPolicy` gives them.
    package init(
        dataDirectory: String, rulesPolicy: RulesPolicy = .development, servesOnlyExistingNamespaces: Bool = false,
        storeOptions: NamespaceStoreOptions = .init(), metrics: TrafficMetrics = TrafficMetrics(), logger: Logger
    ) {
        self.files = NamespaceFiles(dataDirectory: dataDirectory)
        self.storeOptions = storeOptions
        self.cache = PageCache(capacity: storeOptions.cacheBytes, metrics: metrics)
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
    public func preload(_ names: [String]) throws {
        try files.createDirectory()
        pinned.formUnion(names)
        for name in names where files.exists(name) {
            Task {
                do {
                    _ = try await namespace(name, for: .admin, writes: false)
                } catch  where !isClosed {
                    logger.critical(
                        "namespace could not be loaded", metadata: ["namespace": "\(logSafe: name)", "error": "\(logSafe: error)"])
                }
            }
        }
    }

    /// The names of the namespaces that exist (that have a file).
    public nonisolated func namespaceNames() throws -> [String] {
        try files.names()
    }

    /// Creates namespace `name` unless it exists (`hearth database:create`); whether it was new.
    public func createNamespace(_ name: String) async throws -> Bool {
        guard NamespaceFiles.isValidName(name) else { throw DatabaseError.invalidNamespace(name) }
        guard !files.exists(name) else { return false }
        try files.createDirectory()
        try await NamespaceStore.create(path: files.path(of: name), logger: logger)
        return true
    }

    /// Why the database cannot take writes now (its durable log failed or is closed), or `nil`
    /// when it can: a check cheap enough for every probe of `/readyz`.
    public func unavailability() async -> String? {
        do {
            return try await durableLog().unavailability.map { "\($0)" }
        } catch {
            return "\(error)"
        }
    }

    /// Opens the node's durable log now, rather than at the first use of a namespace: with a log
    /// archive, a server whose archive cannot be used (missing, locked, another history's)
    /// refuses to start.
    public func openDurableLog() async throws {
        _ = try await durableLog()
    }

    /// The node's durable log. Opening it writes what it held for each namespace back into
    /// that namespace's tables (a crash left it), before any namespace opens; what it held for a
    /// namespace deleted since is dropped.
    private func durableLog() async throws -> NodeLog {
        if let openingLog { return try await openingLog.value }
        let task = Task { [files, storeOptions, cache, metrics, logger] in
            if storeOptions.logArchiveDirectory != nil { try files.createDirectory() }
            let archive = try storeOptions.logArchiveDirectory.map { directory throws(PersistenceError) in
                try LogArchive(
                    directory: directory, recordedIdentity: files.archiveIdentityPath, logger: logger,
                    reporting: .init(lag: { metrics.recordLogArchiveLag($0) }, failed: { metrics.logArchiveFailures.increment() }))
            }
            let log = try NodeLog.open(directory: files.logDirectory, archive: archive, logger: logger)
            for name in log.namespacesWithUnfoldedBatches {
                guard files.exists(name) else {
                    log.checkpointed(name, through: .max)
                    continue
                }
                // A namespace that cannot take its rows keeps them in the log; its own opening
                // fails again, and the others open.
                do {
                    let store = try await NamespaceStore.open(
                        path: files.path(of: name), name: name, log: log, options: storeOptions, cache: cache, logger: logger)
                    await store.close()
                } catch {
                    logger.critical(
                        "namespace could not take its rows from the durable log",
                        metadata: ["namespace": "\(logSafe: name)", "error": "\(logSafe: error)"])
                }
            }
            return log
        }
        openingLog = task
        return try await task.value
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
        // In production an open namespace may still have no file: an admin's write opened it and
        // failed. Only its creator may use it until a write creates it.
        if servesOnlyExistingNamespaces, !creatable, !files.exists(name) {
            guard NamespaceFiles.isValidName(name) else { throw DatabaseError.invalidNamespace(name) }
            throw DatabaseError.namespaceNotFound(name)
        }
        let clock = ContinuousClock()
        let open = openEngines.withLock { engines -> NamespaceEngine? in
            engines[name]?.lastUse = clock.now
            return engines[name]?.engine
        }
        if let open { return open }
        return try await openNamespace(name)
    }

    private func openNamespace(_ name: String) async throws -> NamespaceEngine {
        if let engine = openEngines.withLock({ $0[name]?.engine }) { return engine }
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
        openEngines.withLock { $0[name] = OpenNamespace(engine: engine, lastUse: ContinuousClock().now) }
        return engine
    }

    private func open(_ name: String) async throws -> NamespaceEngine {
        let log = try await durableLog()
        let listened = ListenedPaths()
        // A namespace without a file starts empty; its first commit creates the file.
        let opened = files.exists(name) ? try await openStore(name, log: log, listened: listened) : nil
        return NamespaceEngine(
            name: name, store: opened?.store, files: files, log: log, storeOptions: storeOptions, cache: cache, listened: listened,
            root: opened?.tree ?? .null, rules: opened?.rules ?? rulesPolicy.fileRules ?? rulesPolicy.fallback,
            explainsDenials: rulesPolicy.explainsDenials, metrics: metrics, logger: logger)
    }

    /// Opens the store of namespace `name`, which has a file, and its tree (its root read, the
    /// journal a crash left replayed), with the rules it enforces.
    private func openStore(
        _ name: String, log: NodeLog, listened: ListenedPaths
    ) async throws -> (store: NamespaceStore, tree: Node, rules: RulesDocument) {
        let clock = ContinuousClock()
        let start = clock.now
        let store = try await NamespaceStore.open(
            path: files.path(of: name), name: name, log: log, options: storeOptions, cache: cache, listened: listened, logger: logger)
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
        await (try? openingLog?.value)?.close()
    }
}
