import HearthCore
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Copies the changes the SQLite stores record (``StoreChangeLog``) into the log archive as they
/// commit, so that accounts, Storage and the console's administrators can be restored to a point
/// in time as the database is: every ``interval``, each store's new changes are appended to its
/// segment and synced (and, for Storage, the bytes of each object they name copied first), then
/// deleted from the store. A change archived twice (a crash between the sync and the deletion)
/// is replayed once.
public struct StoreChangeArchiver: Service {
    /// The thread the archive's files are written on: neither the stores' threads nor the
    /// backups' (which run at the lowest priority).
    static let threadPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        return pool
    }()

    /// How often the stores are read for new changes.
    static let interval = Duration.milliseconds(100)
    /// The most changes copied in one round per store.
    static let batch = 2000

    /// Where the archiver reports how far behind the stores it is, and its failures.
    public struct Reporting: Sendable {
        /// Called after each sync with the time since the oldest change it archived committed.
        let lag: @Sendable (Duration) -> Void
        /// Called when archiving begins to fail.
        let failed: @Sendable () -> Void

        public init(lag: @escaping @Sendable (Duration) -> Void, failed: @escaping @Sendable () -> Void) {
            self.lag = lag
            self.failed = failed
        }
    }

    let dataDirectory: String
    let archive: StoreChangeArchive
    let reporting: Reporting
    let logger: Logger

    public init(dataDirectory: String, archiveDirectory: String, reporting: Reporting, logger: Logger) {
        self.dataDirectory = dataDirectory
        self.archive = StoreChangeArchive(directory: archiveDirectory)
        self.reporting = reporting
        self.logger = logger
    }

    /// Makes every store of `dataDirectory` record its changes when `archiving` (again: triggers
    /// are made anew, for tables added since); when not, stops them recording (a server that
    /// archived before), leaving a gap in the numbering.
    public static func prepare(dataDirectory: String, archiving: Bool, logger: Logger) async throws {
        for store in DataDirectoryLayout.fixedStores where FileManager.default.fileExists(atPath: dataDirectory + "/" + store) {
            let connection = try await open(dataDirectory + "/" + store, logger: logger)
            do {
                if archiving {
                    try await StoreChangeLog.install(on: connection)
                } else {
                    try await StoreChangeLog.uninstall(on: connection)
                }
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        }
    }

    /// One store being archived.
    private struct Store {
        let name: String
        let connection: SQLiteConnection
        var segment: StoreChangeArchive.Segment?
        var isFailing = false
    }

    /// Runs until the server shuts down; it should be the first service of its group, so that it
    /// ends last, once every request has been answered: what committed until then is archived
    /// too.
    public func run() async throws {
        var stores: [Store] = []
        for store in DataDirectoryLayout.fixedStores where FileManager.default.fileExists(atPath: dataDirectory + "/" + store) {
            stores.append(Store(name: store, connection: try await Self.open(dataDirectory + "/" + store, logger: logger)))
        }
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            for index in stores.indices { await archiveNew(of: &stores[index]) }
            try? await Task.sleep(for: Self.interval)
        }
        // The last round and the closing in a task of its own: when the group was cancelled (a
        // port it could not bind), they must still happen, and the thread pool they run on
        // refuses work for cancelled tasks.
        await Task { [stores] in
            var stores = stores
            for index in stores.indices {
                await archiveNew(of: &stores[index])
                try? await stores[index].connection.close()
            }
        }.value
    }

    /// Archives what `store` holds; on failure, logs and reports it once until it succeeds again.
    private func archiveNew(of store: inout Store) async {
        do {
            try await archiveNew(of: store.name, connection: store.connection, segment: &store.segment)
            if store.isFailing { logger.notice("archiving the changes of a store again", metadata: ["store": "\(store.name)"]) }
            store.isFailing = false
        } catch {
            if !store.isFailing {
                reporting.failed()
                logger.error(
                    "cannot archive the changes of a store; they wait in it", metadata: ["store": "\(store.name)", "error": "\(error)"])
            }
            store.isFailing = true
            store.segment = nil
        }
    }

    /// Archives every change `connection`'s store holds, in batches.
    private func archiveNew(of store: String, connection: SQLiteConnection, segment: inout StoreChangeArchive.Segment?) async throws {
        while true {
            let changes = try await StoreChangeLog.changes(after: 0, limit: Self.batch, on: connection)
            guard let first = changes.first, let last = changes.last else { return }
            let current = segment
            let archive = self.archive
            let blobs = store == DataDirectoryLayout.storageStore ? changes.compactMap(Self.objectBlob) : []
            segment = try await Self.threadPool.runIfActive { () throws -> StoreChangeArchive.Segment in
                for id in blobs { try archive.keepBlob(id, from: dataDirectoryPath(DataDirectoryLayout.blob(id))) }
                let target =
                    try current.flatMap { $0.bytes < StoreChangeArchive.segmentBytes ? $0 : nil }
                    ?? archive.newSegment(of: store, from: first.seq)
                try target.append(changes)
                return target
            }
            reporting.lag(.milliseconds(max(0, Int64((Date().timeIntervalSince1970 * 1000).rounded()) - first.time)))
            try await StoreChangeLog.forget(through: last.seq, on: connection)
            if changes.count < Self.batch { return }
        }
    }

    private func dataDirectoryPath(_ relative: String) -> String { dataDirectory + "/" + relative }

    /// The blob a change of Storage's objects writes, if it is one.
    static func objectBlob(_ change: StoreChangeLog.Change) -> String? {
        guard let json = try? JSONParser.parse(change.change) else { return nil }
        return StoreChangeReplay.objectBlob(StoreChangeArchive.Entry(seq: change.seq, time: change.time, change: json))
    }

    static func open(_ path: String, logger: Logger) async throws -> SQLiteConnection {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        _ = try await connection.query("PRAGMA busy_timeout = 10000")
        return connection
    }
}
