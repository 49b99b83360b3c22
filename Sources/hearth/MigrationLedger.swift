import HearthDatabaseServer
import HearthPostgres
import PostgresNIO

/// The migration a cluster's PostgreSQL database took in (`hearth_migrations`): a database takes
/// in one data directory, and only while no node serves it. The row records where Storage's
/// bytes go and which nodes had claimed namespaces before the migration began, so that a
/// migration cut short resumes only if no node served the database since.
struct MigrationLedger {
    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS hearth_migrations (source text PRIMARY KEY, started timestamptz NOT NULL DEFAULT now(),
          finished timestamptz, blob_dir text, earlier_owners text[] NOT NULL)
        """
    ]

    /// A migration recorded in the ledger.
    struct Entry {
        var finished: Bool
        var blobDirectory: String?
        var earlierOwners: [String]
    }

    let database: ClusterDatabase

    static func open(_ address: PostgresAddress) async throws -> MigrationLedger {
        MigrationLedger(database: try await ClusterDatabase.open(address, schema: schema))
    }

    /// The migration of data directory `source`, if it began.
    func entry(of source: String) async throws -> Entry? {
        let rows = try await database.query(
            "SELECT finished IS NOT NULL, blob_dir, earlier_owners FROM hearth_migrations WHERE source = \(source)")
        return try rows.first.map { row in
            let (finished, blobDirectory, owners) = try row.decode((Bool, String?, [String]).self)
            return Entry(finished: finished, blobDirectory: blobDirectory, earlierOwners: owners)
        }
    }

    /// Records that the migration of `source` begins, unless the database took in another data
    /// directory; one transaction at a time decides.
    func begin(_ source: String, blobDirectory: String?) async throws {
        let other = try await database.client.withTransaction(logger: ClusterDatabase.quietLogger) { connection -> String? in
            _ = try await connection.query(
                "LOCK TABLE hearth_migrations IN SHARE ROW EXCLUSIVE MODE", logger: ClusterDatabase.quietLogger)
            let others = try await connection.query(
                "SELECT source FROM hearth_migrations WHERE source <> \(source)", logger: ClusterDatabase.quietLogger
            ).collect()
            if let other = others.first { return try other.decode(String.self) }
            let prefix = DatabaseMigration.nodePrefix + "%"
            _ = try await connection.query(
                """
                INSERT INTO hearth_migrations (source, blob_dir, earlier_owners)
                SELECT \(source), \(blobDirectory), COALESCE(array_agg(DISTINCT owner), '{}') FROM hearth_namespaces
                WHERE owner IS NOT NULL AND owner NOT LIKE \(prefix)
                ON CONFLICT (source) DO NOTHING
                """, logger: ClusterDatabase.quietLogger)
            return nil
        }
        if let other {
            throw MigrationError.refused("PostgreSQL took in another data directory already (migration \(other))")
        }
    }

    /// The nodes (not migrations) that hold a namespace's lease now.
    func servingNodes() async throws -> [String] {
        let prefix = DatabaseMigration.nodePrefix + "%"
        return try await database.query(
            """
            SELECT DISTINCT owner FROM hearth_namespaces
            WHERE owner NOT LIKE \(prefix) AND lease_until IS NOT NULL AND lease_until > now()
            """
        ).map { try $0.decode(String.self) }
    }

    /// The nodes (not migrations) that claimed a namespace and are not among `earlier`.
    func nodesThatServed(besides earlier: [String]) async throws -> [String] {
        let prefix = DatabaseMigration.nodePrefix + "%"
        return try await database.query(
            """
            SELECT DISTINCT owner FROM hearth_namespaces
            WHERE owner IS NOT NULL AND owner NOT LIKE \(prefix) AND NOT (owner = ANY(\(earlier)))
            """
        ).map { try $0.decode(String.self) }
    }

    func finish(_ source: String) async throws {
        _ = try await database.query("UPDATE hearth_migrations SET finished = now() WHERE source = \(source)")
    }

    func close() async {
        await database.close()
    }
}
