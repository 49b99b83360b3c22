import HearthSupport
import Logging
import SQLiteNIO
import Synchronization

/// Copies a store's write-ahead log back into its database file from a connection of its own.
///
/// SQLite's automatic checkpoint runs inside the commit that fills the log, and that commit (with
/// every write waiting behind it) waits for the copy and the database file's fsync. Here the
/// store's connection never checkpoints (`wal_autocheckpoint=0`); every thousand pages or so a
/// passive checkpoint runs on this connection beside them — a passive checkpoint takes no lock a
/// commit needs — and the next commit after a complete one starts the log over.
final class WALCheckpointer: Sendable {
    /// Pages written between two checkpoints (SQLite's automatic checkpoint waits for 1,000), as
    /// the store estimates them: a small commit adds a page or two to the log.
    static let pagesBetweenCheckpoints = 1000

    private let connection: SQLiteConnection
    private let state = Mutex((running: Task<Void, Never>?.none, pagesSince: 0))

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// A connection to the database at `path`, whose log the store's own connection fills.
    static func open(path: String, logger: Logger) async throws -> WALCheckpointer {
        WALCheckpointer(connection: try await DurableSQLite.open(path: path, schema: ["PRAGMA wal_autocheckpoint=0"], logger: logger))
    }

    /// Counts a commit of about `pages` pages; starts a checkpoint when enough have come since the
    /// last one and none runs.
    func noteCommit(pages: Int) {
        state.withLock { state in
            state.pagesSince += pages
            guard state.running == nil, state.pagesSince >= Self.pagesBetweenCheckpoints else { return }
            state.pagesSince = 0
            state.running = Task { [self] in
                // A failed checkpoint leaves the log as it is; the next one copies it.
                _ = try? await connection.query("PRAGMA wal_checkpoint(PASSIVE)")
                self.state.withLock { $0.running = nil }
            }
        }
    }

    /// Waits for a running checkpoint and closes the connection.
    func close() async {
        await state.withLock { $0.running }?.value
        try? await connection.close()
    }
}
