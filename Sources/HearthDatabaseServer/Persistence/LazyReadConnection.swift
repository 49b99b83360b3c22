import Logging
import SQLiteNIO
import Synchronization

/// A connection to a store's file for reads beside the store's own, opened on first use: the
/// history's reads run on it, so that a long scan of the log never delays a commit, and a
/// namespace whose history nobody reads holds no extra file open.
final class LazyReadConnection: Sendable {
    private let path: String
    private let logger: Logger
    private let opening = Mutex<Task<SQLiteConnection, any Error>?>(nil)

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    /// The connection, opened on the first call.
    func connection() async throws -> SQLiteConnection {
        let task = opening.withLock { opening in
            if let opening { return opening }
            let task = Task { [path, logger] in try await SQLiteConnection.open(storage: .file(path: path), logger: logger) }
            opening = task
            return task
        }
        return try await task.value
    }

    /// Closes the connection, if it was opened.
    func close() async {
        guard let task = opening.withLock({ $0 }) else { return }
        try? await task.value.close()
    }
}
