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
    /// How often the stores are read for new changes.
    static let interval = Duration.milliseconds(100)
    /// The most changes copied in one round per store.
    static let batch = 2000

    let dataDirectory: String
    let archive: StoreChangeArchive
    let logger: Logger

    public init(dataDirectory: String, archiveDirectory: String, logger: Logger) {
        self.dataDirectory = dataDirectory
        self.archive = StoreChangeArchive(directory: archiveDirectory)
        self.logger = logger
    }

    /// Installs the triggers on every store of `dataDirectory` when `archiving`, and removes them
    /// when not (a store restored from a backup taken while archiving has them).
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

    public func run() async throws {
        var stores: [(name: String, connection: SQLiteConnection, segment: StoreChangeArchive.Segment?)] = []
        for store in DataDirectoryLayout.fixedStores where FileManager.default.fileExists(atPath: dataDirectory + "/" + store) {
            stores.append((store, try await Self.open(dataDirectory + "/" + store, logger: logger), nil))
        }
        defer {
            let connections = stores.map(\.connection)
            Task { for connection in connections { try? await connection.close() } }
        }
        var failing = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            for index in stores.indices {
                do {
                    try await archiveNew(of: stores[index].name, connection: stores[index].connection, segment: &stores[index].segment)
                    if failing { logger.notice("archiving the stores' changes again") }
                    failing = false
                } catch {
                    if !failing {
                        logger.error(
                            "cannot archive the changes of a store; they wait in it",
                            metadata: ["store": "\(stores[index].name)", "error": "\(error)"])
                    }
                    failing = true
                    stores[index].segment = nil
                }
            }
            try? await Task.sleep(for: Self.interval)
        }
        // What committed before the end is archived too.
        for index in stores.indices {
            try? await archiveNew(of: stores[index].name, connection: stores[index].connection, segment: &stores[index].segment)
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
            segment = try await NIOThreadPool.singleton.runIfActive { () throws -> StoreChangeArchive.Segment in
                for id in blobs { try archive.keepBlob(id, from: dataDirectoryPath(DataDirectoryLayout.blob(id))) }
                let target =
                    try current.flatMap { $0.bytes < StoreChangeArchive.segmentBytes ? $0 : nil }
                    ?? archive.newSegment(of: store, from: first.seq)
                try target.append(changes)
                return target
            }
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
