import HearthPostgres
import PostgresNIO
import SQLiteNIO

/// Every row of an Authentication store, each table's rows as text columns sorted by their key:
/// what `hearth migrate --to-postgres` copies from a data directory's store into PostgreSQL's,
/// and compares afterwards. Both stores keep records as the same JSON text, so a row is copied
/// as it is, never decoded and encoded again.
struct AuthStoreRows: Equatable, Sendable {
    /// `local_id`, `record`.
    var users: [[String]] = []
    /// `code`, `record`.
    var codes: [[String]] = []
    /// `name`, `value`.
    var settings: [[String]] = []
    /// `token_hash`, `local_id`, `record`.
    var sessions: [[String]] = []
    /// `key_id`, `client_email`, `public_key_pem`, `created_at`.
    var serviceAccounts: [[String]] = []
    /// `id`, `secret_hash`, `created_at`.
    var databaseSecrets: [[String]] = []

    /// Rows sorted by their first column as Swift orders strings, so that both stores' rows
    /// compare equal whatever their collations.
    static func sorted(_ rows: [[String]]) -> [[String]] {
        rows.sorted { $0[0] < $1[0] }
    }
}

extension SQLiteAuthStore {
    /// Every row of the store.
    func rows() async throws -> AuthStoreRows {
        func read(_ sql: String, _ columns: [String]) async throws -> [[String]] {
            try await AuthStoreRows.sorted(
                connection.query(sql).map { row in
                    try columns.map { column in
                        // Text as stored (a uid such as "007" stays as it is); an integer as its digits.
                        guard let text = row.column(column)?.string else { throw AuthStoreError.corruptRow }
                        return text
                    }
                })
        }
        return AuthStoreRows(
            users: try await read("SELECT local_id, record FROM users", ["local_id", "record"]),
            codes: try await read("SELECT code, record FROM oob_codes", ["code", "record"]),
            settings: try await read("SELECT name, value FROM settings", ["name", "value"]),
            sessions: try await read("SELECT token_hash, local_id, record FROM sessions", ["token_hash", "local_id", "record"]),
            serviceAccounts: try await read(
                "SELECT key_id, client_email, public_key_pem, created_at FROM service_accounts",
                ["key_id", "client_email", "public_key_pem", "created_at"]),
            databaseSecrets: try await read(
                "SELECT id, secret_hash, created_at FROM database_secrets", ["id", "secret_hash", "created_at"]))
    }
}

extension PostgresAuthStore {
    /// Every row of the store; accounts and codes removed (kept as rows without a record, for
    /// other nodes to learn of the removal) are not rows of the state.
    func rows() async throws -> AuthStoreRows {
        func read(_ query: PostgresQuery) async throws -> [[String]] {
            try await AuthStoreRows.sorted(
                database.query(query, within: ClusterDatabase.statementTimeout).map { row in
                    try row.makeRandomAccess().map { try $0.decode(String.self) }
                })
        }
        return AuthStoreRows(
            users: try await read("SELECT local_id, record FROM hearth_auth_users WHERE record IS NOT NULL"),
            codes: try await read("SELECT code, record FROM hearth_auth_codes WHERE record IS NOT NULL"),
            settings: try await read("SELECT name, value FROM hearth_auth_settings"),
            sessions: try await read("SELECT token_hash, local_id, record FROM hearth_auth_sessions"),
            serviceAccounts: try await read(
                "SELECT key_id, client_email, public_key_pem, created_at::text FROM hearth_auth_service_accounts"),
            databaseSecrets: try await read("SELECT id, secret_hash, created_at::text FROM hearth_auth_database_secrets"))
    }

    /// Whether the store holds no account, action code, session, service-account key, database
    /// secret or project or provider configuration: nothing but what a node makes for itself when
    /// it starts (signing keys, the hash configuration).
    func holdsNoAccounts() async throws -> Bool {
        let rows = try await database.query(
            """
            SELECT EXISTS (SELECT 1 FROM hearth_auth_users WHERE record IS NOT NULL)
              OR EXISTS (SELECT 1 FROM hearth_auth_codes WHERE record IS NOT NULL)
              OR EXISTS (SELECT 1 FROM hearth_auth_sessions) OR EXISTS (SELECT 1 FROM hearth_auth_service_accounts)
              OR EXISTS (SELECT 1 FROM hearth_auth_database_secrets)
              OR EXISTS (SELECT 1 FROM hearth_auth_settings
                WHERE name IN (\(AuthChanges.configSetting), \(AuthChanges.providersSetting)))
            """, within: ClusterDatabase.statementTimeout)
        return try rows.first?.decode(Bool.self) == false
    }

    /// Replaces every row of the store with `rows`, in one transaction. Each page of accounts,
    /// codes and settings carries a version of its own, so that a node reads them anew page by
    /// page (``changes(after:)`` cuts pages between versions).
    func replace(with rows: AuthStoreRows) async throws {
        try await database.client.withTransaction(logger: ClusterDatabase.quietLogger) { connection in
            func run(_ query: PostgresQuery) async throws {
                _ = try await connection.query(query, logger: ClusterDatabase.quietLogger)
            }
            func nextVersion() async throws -> Int64 {
                try await connection.query(
                    "UPDATE hearth_auth_head SET version = version + 1 WHERE id = 1 RETURNING version",
                    logger: ClusterDatabase.quietLogger
                ).collect().first?.decode(Int64.self) ?? 0
            }
            for table in [
                "hearth_auth_users", "hearth_auth_codes", "hearth_auth_settings", "hearth_auth_sessions",
                "hearth_auth_service_accounts", "hearth_auth_database_secrets",
            ] {
                try await run(PostgresQuery(unsafeSQL: "DELETE FROM \(table)"))
            }
            for page in Self.pages(rows.users) {
                let version = try await nextVersion()
                try await run(
                    """
                    INSERT INTO hearth_auth_users (local_id, record, version)
                    SELECT *, \(version) FROM unnest(\(page.column(0)), \(page.column(1)))
                    """)
            }
            for page in Self.pages(rows.codes) {
                let version = try await nextVersion()
                try await run(
                    """
                    INSERT INTO hearth_auth_codes (code, record, version)
                    SELECT *, \(version) FROM unnest(\(page.column(0)), \(page.column(1)))
                    """)
            }
            for page in Self.pages(rows.settings) {
                let version = try await nextVersion()
                try await run(
                    """
                    INSERT INTO hearth_auth_settings (name, value, version)
                    SELECT *, \(version) FROM unnest(\(page.column(0)), \(page.column(1)))
                    """)
            }
            for page in Self.pages(rows.sessions) {
                try await run(
                    """
                    INSERT INTO hearth_auth_sessions (token_hash, local_id, record)
                    SELECT * FROM unnest(\(page.column(0)), \(page.column(1)), \(page.column(2)))
                    """)
            }
            for page in Self.pages(rows.serviceAccounts) {
                try await run(
                    """
                    INSERT INTO hearth_auth_service_accounts (key_id, client_email, public_key_pem, created_at)
                    SELECT * FROM unnest(\(page.column(0)), \(page.column(1)), \(page.column(2)),
                      \(page.column(3).map { Int64($0) ?? 0 }))
                    """)
            }
            for page in Self.pages(rows.databaseSecrets) {
                try await run(
                    """
                    INSERT INTO hearth_auth_database_secrets (id, secret_hash, created_at)
                    SELECT * FROM unnest(\(page.column(0)), \(page.column(1)), \(page.column(2).map { Int64($0) ?? 0 }))
                    """)
            }
        }
    }

    /// `rows` in pages of a size one statement binds comfortably.
    private static func pages(_ rows: [[String]]) -> [RowPage] {
        stride(from: 0, to: rows.count, by: 1000).map { RowPage(rows: Array(rows[$0..<min($0 + 1000, rows.count)])) }
    }
}

/// Rows bound as one array per column.
private struct RowPage {
    let rows: [[String]]

    func column(_ index: Int) -> [String] { rows.map { $0[index] } }
}
