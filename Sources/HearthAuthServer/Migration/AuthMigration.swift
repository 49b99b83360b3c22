import HearthPostgres
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Authentication's part of `hearth migrate --to-postgres`: every row of the data directory's
/// store (accounts, action codes, settings with the hash configuration and signing keys,
/// sessions, service-account keys, database secrets) replaces PostgreSQL's in one transaction,
/// then is read back and compared. PostgreSQL's rows are replaced only when they hold nothing
/// but what a starting node makes for itself (signing keys, the hash configuration). Passwords, refresh tokens and ID tokens issued before the
/// move stay valid after it.
package enum AuthMigration {
    /// Whether PostgreSQL at `address` holds no account, session, service-account key or
    /// database secret.
    package static func holdsNoAccounts(_ address: PostgresAddress) async throws -> Bool {
        try await using(try await PostgresAuthStore.open(address)) { try await $0.holdsNoAccounts() }
    }

    /// Copies the store of `dataDirectory` over PostgreSQL's at `address`, unless PostgreSQL
    /// already holds the same rows or the data directory has no store; the number of accounts
    /// copied.
    package static func copy(from dataDirectory: String, to address: PostgresAddress, logger: Logger) async throws -> Int {
        guard FileManager.default.fileExists(atPath: SQLiteAuthStore.path(dataDirectory: dataDirectory)) else { return 0 }
        let rows = try await using(try await SQLiteAuthStore.open(dataDirectory: dataDirectory, logger: logger)) {
            try await $0.rows()
        }
        try await using(try await PostgresAuthStore.open(address)) { target in
            guard try await target.rows() != rows else { return }
            // Written only over nothing: the replacement is one transaction, so a migration cut
            // short left either all of it or none.
            guard try await target.holdsNoAccounts() else {
                throw MigrationError.changedElsewhere(
                    item: "Authentication", reason: "it holds accounts, codes, keys or configurations the data directory does not")
            }
            try await target.replace(with: rows)
            let copied = try await target.rows()
            guard copied == rows else {
                throw MigrationError.mismatch(item: "Authentication", difference: difference(between: rows, and: copied))
            }
        }
        return rows.users.count
    }

    /// What `body` returns with `store`, closed afterwards whatever happens.
    private static func using<Store: AuthStore, Result>(_ store: Store, _ body: (Store) async throws -> Result) async throws
        -> Result
    {
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    /// The first table whose rows differ.
    private static func difference(between expected: AuthStoreRows, and found: AuthStoreRows) -> String {
        let tables: [(String, KeyPath<AuthStoreRows, [[String]]>)] = [
            ("accounts", \.users), ("action codes", \.codes), ("settings", \.settings), ("sessions", \.sessions),
            ("service-account keys", \.serviceAccounts), ("database secrets", \.databaseSecrets),
        ]
        for (name, rows) in tables where expected[keyPath: rows] != found[keyPath: rows] {
            return "\(name): \(expected[keyPath: rows].count) copied, \(found[keyPath: rows].count) read back"
        }
        return "no table"
    }
}
