import Logging
import SQLiteNIO

/// Opens the SQLite databases that hold Hearth's durable state, all one way: write-ahead logging
/// with `synchronous=FULL`, so that a commit is on disk before it returns and a write acknowledged
/// to a client survives a crash or a power loss; then the store's own statements, run at every
/// open (`PRAGMA`s of its own, `CREATE … IF NOT EXISTS`, temporary views and triggers). When one
/// fails the connection is closed again and the error thrown. A write that finds another
/// connection writing (the log archiver deleting the changes it archived, a backup's copy)
/// waits for it, up to 10 s, instead of failing.
package enum DurableSQLite {
    package static func open(path: String, schema: [String], logger: Logger) async throws -> SQLiteConnection {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        do {
            for statement in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA busy_timeout=10000"] + schema {
                _ = try await connection.query(statement)
            }
        } catch {
            try? await connection.close()
            throw error
        }
        return connection
    }

    /// Why `connection` cannot be used now, or `nil` when it answers a statement: the check
    /// behind `/readyz`, which reads nothing but the file's header.
    package static func unavailability(of connection: SQLiteConnection) async -> String? {
        do {
            _ = try await connection.query("PRAGMA data_version")
            return nil
        } catch {
            return "\(error)"
        }
    }
}
