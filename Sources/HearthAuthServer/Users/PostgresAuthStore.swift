import HearthPostgres
import Logging
import PostgresNIO

/// The state of Authentication in PostgreSQL (``PostgresAuthSchema``), shared by every node
/// given the same database: accounts made on one node sign in on every other, and a refresh
/// token, database secret or service-account key issued by one is honoured by all.
final class PostgresAuthStore: AuthStore {
    private let database: ClusterDatabase
    /// How long a query may wait for its answer.
    private static let answerTimeout: Duration = .seconds(10)

    private init(database: ClusterDatabase) {
        self.database = database
    }

    /// Connects to the database at `address`, creating the tables that are missing.
    static func open(_ address: PostgresAddress, logger: Logger) async throws -> PostgresAuthStore {
        let database = ClusterDatabase(address)
        do {
            try await database.createSchema(PostgresAuthSchema.statements)
        } catch {
            await database.close()
            throw PostgresAuthStoreError.unavailable(ClusterDatabase.describe(error))
        }
        return PostgresAuthStore(database: database)
    }

    var isShared: Bool { true }

    func close() async {
        await database.close()
    }

    func unavailability() async -> String? {
        do {
            _ = try await run("SELECT 1")
            return nil
        } catch {
            return "\(error)"
        }
    }

    // MARK: Users, action codes and the directory's settings

    func changes(after version: Int64) async throws -> AuthChanges {
        let rows = try await run(
            """
            SELECT 'h' AS kind, NULL AS key, NULL AS record, version FROM hearth_auth_head
            UNION ALL SELECT 'u', local_id, record, version FROM hearth_auth_users WHERE version > \(version)
            UNION ALL SELECT 'c', code, record, version FROM hearth_auth_codes WHERE version > \(version)
            UNION ALL SELECT 's', name, value, version FROM hearth_auth_settings
              WHERE version > \(version) AND name IN (\(AuthChanges.configSetting), \(AuthChanges.providersSetting))
            """)
        var changes = AuthChanges(version: version)
        for row in rows {
            let (kind, key, record, rowVersion) = try row.decode((String, String?, String?, Int64).self)
            switch (kind, key) {
            case ("h", _):
                changes.version = rowVersion
            case ("u", let localId?):
                changes.users[localId] = .some(try record.map { try AuthStoreCoding.decode(UserRecord.self, $0) })
            case ("c", let code?):
                changes.codes[code] = .some(try record.map { try AuthStoreCoding.decode(ActionCode.self, $0) })
            case ("s", AuthChanges.configSetting):
                changes.config = try AuthStoreCoding.decode(ProjectAuthConfig.self, record)
            case ("s", AuthChanges.providersSetting):
                changes.providers = try AuthStoreCoding.decode(ProviderConfigs.self, record)
            default:
                throw AuthStoreError.corruptRow
            }
        }
        return changes
    }

    func commit(_ operations: [AuthStoreOperation], basedOn version: Int64) async throws -> Int64? {
        var names: [String] = []
        var keys: [String] = []
        var values: [String] = []
        for operation in operations {
            let (name, key, value) = try operation.row()
            names.append(name)
            keys.append(key ?? "")
            values.append(value ?? "")
        }
        let rows = try await run("SELECT hearth_auth_commit(\(version), \(names), \(keys), \(values))")
        return try rows.first?.decode(Int64?.self)
    }

    // MARK: Sessions

    func session(tokenHash: String) async throws -> RefreshSession? {
        let rows = try await run("SELECT record FROM hearth_auth_sessions WHERE token_hash = \(tokenHash)")
        return try rows.first.map { try AuthStoreCoding.decode(RefreshSession.self, try $0.decode(String.self)) }
    }

    func removeSessions(of localIds: [String]) async throws {
        guard !localIds.isEmpty else { return }
        _ = try await run("DELETE FROM hearth_auth_sessions WHERE local_id = ANY(\(localIds))")
    }

    func removeSession(tokenHash: String) async throws {
        _ = try await run("DELETE FROM hearth_auth_sessions WHERE token_hash = \(tokenHash)")
    }

    func saveSession(_ session: RefreshSession, tokenHash: String) async throws {
        let record = try AuthStoreCoding.encode(session)
        _ = try await run(
            """
            INSERT INTO hearth_auth_sessions (token_hash, local_id, record) VALUES (\(tokenHash), \(session.localId), \(record))
            ON CONFLICT (token_hash) DO UPDATE SET local_id = EXCLUDED.local_id, record = EXCLUDED.record
            """)
    }

    // MARK: Service accounts

    func addServiceAccountKey(_ key: ServiceAccountKey) async throws {
        _ = try await run(
            """
            INSERT INTO hearth_auth_service_accounts (key_id, client_email, public_key_pem, created_at)
            VALUES (\(key.keyID), \(key.clientEmail), \(key.publicKeyPEM), \(key.createdAt))
            """)
    }

    func serviceAccountKeys() async throws -> [ServiceAccountKey] {
        try await run("SELECT key_id, client_email, public_key_pem, created_at FROM hearth_auth_service_accounts").map { row in
            let (keyID, clientEmail, publicKeyPEM, createdAt) = try row.decode((String, String, String, Int64).self)
            return ServiceAccountKey(keyID: keyID, clientEmail: clientEmail, publicKeyPEM: publicKeyPEM, createdAt: createdAt)
        }
    }

    func hasServiceAccountKey(_ keyID: String) async throws -> Bool {
        try await !run("SELECT 1 FROM hearth_auth_service_accounts WHERE key_id = \(keyID)").isEmpty
    }

    func removeServiceAccountKey(_ keyID: String) async throws -> Bool {
        try await !run("DELETE FROM hearth_auth_service_accounts WHERE key_id = \(keyID) RETURNING 1").isEmpty
    }

    // MARK: Database secrets

    func hasDatabaseSecret(hash: String) async throws -> Bool {
        try await !run("SELECT 1 FROM hearth_auth_database_secrets WHERE secret_hash = \(hash)").isEmpty
    }

    func addDatabaseSecret(id: String, hash: String, createdAt: Int64) async throws {
        _ = try await run(
            "INSERT INTO hearth_auth_database_secrets (id, secret_hash, created_at) VALUES (\(id), \(hash), \(createdAt))")
    }

    func databaseSecrets() async throws -> [(id: String, createdAt: Int64)] {
        try await run("SELECT id, created_at FROM hearth_auth_database_secrets ORDER BY created_at, id COLLATE \"C\"").map {
            try $0.decode((String, Int64).self)
        }
    }

    func removeDatabaseSecret(id: String) async throws -> Bool {
        try await !run("DELETE FROM hearth_auth_database_secrets WHERE id = \(id) RETURNING 1").isEmpty
    }

    // MARK: Settings

    func setting<Value: Decodable>(_ name: String, as type: Value.Type) async throws -> Value? {
        let rows = try await run("SELECT value FROM hearth_auth_settings WHERE name = \(name)")
        return try rows.first.map { try AuthStoreCoding.decode(type, try $0.decode(String.self)) }
    }

    /// Compares values as JSON (`jsonb`), not as text: what one node wrote, another re-encodes
    /// with its keys in another order.
    func replaceSetting(_ name: String, expected: (some Encodable & Sendable)?, with value: some Encodable & Sendable)
        async throws -> Bool
    {
        let new = try AuthStoreCoding.encode(value)
        guard let expected else {
            return try await !run(
                """
                INSERT INTO hearth_auth_settings (name, value) VALUES (\(name), \(new))
                ON CONFLICT (name) DO NOTHING RETURNING 1
                """
            ).isEmpty
        }
        let old = try AuthStoreCoding.encode(expected)
        return try await !run(
            """
            UPDATE hearth_auth_settings SET value = \(new)
            WHERE name = \(name) AND value::jsonb = \(old)::jsonb RETURNING 1
            """
        ).isEmpty
    }

    /// The rows of `query`; PostgreSQL's failures, and no answer within ``answerTimeout``,
    /// become ``PostgresAuthStoreError/unavailable(_:)``.
    private func run(_ query: PostgresQuery) async throws(PostgresAuthStoreError) -> [PostgresRow] {
        do {
            return try await database.rows(
                query, within: Self.answerTimeout,
                orThrow: PostgresAuthStoreError.unavailable("no answer within \(Self.answerTimeout)"))
        } catch let error as PostgresAuthStoreError {
            throw error
        } catch {
            throw .unavailable(ClusterDatabase.describe(error))
        }
    }
}

/// Why the accounts in PostgreSQL could not be read or written.
enum PostgresAuthStoreError: Error, CustomStringConvertible {
    /// PostgreSQL refused, failed or did not answer; what it said.
    case unavailable(String)

    var description: String {
        switch self {
        case .unavailable(let reason): "PostgreSQL: \(reason)"
        }
    }
}
