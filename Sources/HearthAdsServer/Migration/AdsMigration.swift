import HearthPostgres
import Logging
import PostgresNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The ads' part of `hearth migrate --to-postgres`: every table of the data directory's ads
/// store (the catalog, the token key, uploaded images, the counts, the events whose tokens have
/// not expired, the viewers' impressions) copied into PostgreSQL's `hearth_ads_…` tables in one
/// transaction, then read back and compared. A migration resumed after it copied them finds
/// them equal and copies nothing; PostgreSQL's ads are never written over unless empty.
package enum AdsMigration {
    /// Whether PostgreSQL at `address` holds no ads: no catalog, key, image, count or event.
    package static func holdsNoAds(_ address: PostgresAddress) async throws -> Bool {
        try await using(address) { try await AdsTables.read($0).isEmpty }
    }

    /// Copies the ads store of `dataDirectory`, if it has one, into PostgreSQL at `address`;
    /// how many units, creatives and campaigns it holds.
    package static func copy(from dataDirectory: String, to address: PostgresAddress, logger: Logger) async throws -> Int {
        guard FileManager.default.fileExists(atPath: SQLiteAdsStore.path(dataDirectory: dataDirectory)) else { return 0 }
        let store = try await SQLiteAdsStore.open(dataDirectory: dataDirectory, clock: AdsClock(isSettable: false), logger: logger)
        let tables: AdsTables
        do {
            tables = try await AdsTables.read(store.connection)
            await store.close()
        } catch {
            await store.close()
            throw error
        }
        try await using(address) { connection in
            guard try await AdsTables.read(connection) != tables else { return }
            try await connection.query("BEGIN", logger: ClusterDatabase.quietLogger)
            do {
                // Written only over nothing, and in one transaction: a migration cut short
                // left all of it or none.
                guard try await AdsTables.read(connection).isEmpty else {
                    throw MigrationError.changedElsewhere(item: "The ads", reason: "it holds ads the data directory does not")
                }
                try await tables.write(connection)
                try await connection.query("COMMIT", logger: ClusterDatabase.quietLogger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: ClusterDatabase.quietLogger)
                throw error
            }
            let copied = try await AdsTables.read(connection)
            guard copied == tables else { throw MigrationError.mismatch(item: "The ads", difference: tables.difference(from: copied)) }
        }
        return tables.catalogRows
    }

    /// What `body` returns with a connection to `address` whose ads tables exist, closed
    /// afterwards whatever happens.
    private static func using<Result>(_ address: PostgresAddress, _ body: (PostgresConnection) async throws -> Result)
        async throws -> Result
    {
        let database = try await ClusterDatabase.open(address, schema: PostgresAdsStore.schema)
        do {
            let result = try await database.client.withConnection { try await body($0) }
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }
}
