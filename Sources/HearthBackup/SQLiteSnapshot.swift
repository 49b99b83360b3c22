import Logging
import SQLiteNIO

/// A consistent copy of a SQLite store that another process may be writing: `VACUUM INTO` reads
/// the store in one read transaction, so the copy holds every transaction committed before it
/// began and nothing of those after. The copy leaves write-ahead logging, so that it is one file
/// complete in itself, and has no change-recording triggers (``StoreChangeLog``): it keeps the
/// number of the last change recorded, which a restore to a point in time goes on from.
enum SQLiteSnapshot {
    /// Copies the store `source` into the new file `destination`.
    static func copy(_ source: String, to destination: String, logger: Logger) async throws(BackupError) {
        do {
            let connection = try await SQLiteConnection.open(
                storage: .file(path: source), threadPool: BackupIO.threadPool, logger: logger, on: BackupIO.eventLoop)
            do {
                // A writer holding the store's lock makes the copy wait, not fail.
                _ = try await connection.query("PRAGMA busy_timeout = 60000")
                _ = try await connection.query("VACUUM INTO ?", [.text(destination)])
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
            // The copy records no changes: editing it (``BackupWriter``) must not number any.
            try await edit(destination, logger: logger) { copy in try await StoreChangeLog.dropTriggers(on: copy) }
        } catch let error as BackupError {
            throw error
        } catch {
            throw .sqlite("cannot copy the store \(source): \(error)")
        }
    }

    /// Runs `change` on the copy at `path` in a rollback-journal transaction, synced.
    static func edit(
        _ path: String, logger: Logger, _ change: (SQLiteConnection) async throws -> Void
    ) async throws(BackupError) {
        do {
            let connection = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: BackupIO.threadPool, logger: logger, on: BackupIO.eventLoop)
            do {
                for statement in ["PRAGMA journal_mode = DELETE", "PRAGMA synchronous = FULL", "BEGIN IMMEDIATE"] {
                    _ = try await connection.query(statement)
                }
                try await change(connection)
                _ = try await connection.query("COMMIT")
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } catch {
            throw .sqlite("cannot change the copy \(path): \(error)")
        }
    }
}
