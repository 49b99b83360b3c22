import HearthCore
import HearthEdge
import Logging
import Synchronization

/// Namespaces kept in SQLite files under `<data dir>/database/`, their writes made durable by the
/// node's ``NodeLog`` (one server, its own disk).
final class EmbeddedNamespaces: NamespaceBackend {
    let files: NamespaceFiles
    private let options: NamespaceStoreOptions
    private let cache: PageCache
    private let metrics: TrafficMetrics
    private let logger: Logger
    /// The node's durable log, opened by the first namespace opened (``durableLog()``).
    private let openingLog = Mutex<Task<NodeLog, any Error>?>(nil)

    init(dataDirectory: String, options: NamespaceStoreOptions, cache: PageCache, metrics: TrafficMetrics, logger: Logger) {
        self.files = NamespaceFiles(dataDirectory: dataDirectory)
        self.options = options
        self.cache = cache
        self.metrics = metrics
        self.logger = logger
    }

    func prepare() async throws {
        try files.createDirectory()
        _ = try await durableLog()
    }

    func exists(_ name: String) -> Bool {
        files.exists(name)
    }

    func names() throws -> [String] {
        try files.names()
    }

    func create(_ name: String) async throws -> Bool {
        guard !files.exists(name) else { return false }
        try files.createDirectory()
        try await NamespaceStore.create(path: files.path(of: name), logger: logger)
        return true
    }

    func open(_ name: String, listened: ListenedPaths) async throws -> (any NamespaceStorage)? {
        guard files.exists(name) else { return nil }
        return try await openStore(name, listened: listened)
    }

    func storeFactory(_ name: String, listened: ListenedPaths) -> StoreFactory {
        { [self] in
            try files.createDirectory()
            return try await openStore(name, listened: listened)
        }
    }

    /// Opens the tables of namespace `name`, creating its file if needed.
    private func openStore(_ name: String, listened: ListenedPaths) async throws -> NamespaceStore {
        try await NamespaceStore.open(
            path: files.path(of: name), name: name, log: durableLog(), options: options, cache: cache, listened: listened,
            logger: logger)
    }

    /// Every namespace is this node's own.
    func forgetOwner(of name: String) {}

    func unavailability() async -> String? {
        do {
            return try await durableLog().unavailability.map { "\($0)" }
        } catch {
            return "\(error)"
        }
    }

    func close() async {
        await (try? openingLog.withLock { $0 }?.value)?.close()
    }

    /// The node's durable log. Opening it writes what it held for each namespace back into
    /// that namespace's tables (a crash left it), before any namespace opens; what it held for a
    /// namespace deleted since is dropped.
    private func durableLog() async throws -> NodeLog {
        let task = openingLog.withLock { opening in
            if let opening { return opening }
            let task = Task { try await openLog() }
            opening = task
            return task
        }
        return try await task.value
    }

    private func openLog() async throws -> NodeLog {
        if options.logArchiveDirectory != nil { try files.createDirectory() }
        let archive = try options.logArchiveDirectory.map { [files, metrics, logger] directory throws(PersistenceError) in
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
                    path: files.path(of: name), name: name, log: log, options: options, cache: cache, logger: logger)
                await store.close()
            } catch {
                logger.critical(
                    "namespace could not take its rows from the durable log",
                    metadata: ["namespace": "\(logSafe: name)", "error": "\(logSafe: error)"])
            }
        }
        return log
    }
}
