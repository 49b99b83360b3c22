import HearthPostgres
import PostgresNIO

/// The migrations a cluster's PostgreSQL database has taken in (`hearth_migrations`), one row per
/// data directory: a migration writes only into a database that held nothing, or into one it
/// began writing into itself and was cut short.
struct MigrationLedger {
    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS hearth_migrations (source text PRIMARY KEY, started timestamptz NOT NULL DEFAULT now(),
          finished timestamptz)
        """
    ]

    let database: ClusterDatabase

    static func open(_ address: PostgresAddress) async throws -> MigrationLedger {
        MigrationLedger(database: try await ClusterDatabase.open(address, schema: schema))
    }

    /// Whether the migration of data directory `source` began, and whether it finished.
    func state(of source: String) async throws -> (began: Bool, finished: Bool) {
        let rows = try await database.query("SELECT finished IS NOT NULL FROM hearth_migrations WHERE source = \(source)")
        guard let row = rows.first else { return (false, false) }
        return (true, try row.decode(Bool.self))
    }

    func begin(_ source: String) async throws {
        _ = try await database.query("INSERT INTO hearth_migrations (source) VALUES (\(source)) ON CONFLICT DO NOTHING")
    }

    func finish(_ source: String) async throws {
        _ = try await database.query("UPDATE hearth_migrations SET finished = now() WHERE source = \(source)")
    }

    func close() async {
        await database.close()
    }
}
