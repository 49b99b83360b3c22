import HearthPostgres
import PostgresNIO

/// The state of Authentication in PostgreSQL (``PostgresAuthSchema``), shared by every node
/// given the same database: accounts made on one node sign in on every other, and a refresh
/// token, database secret or service-account key issued by one is honoured by all.
final class PostgresAuthStore: AuthStore {
    let database: ClusterDatabase

    private init(database: ClusterDatabase) {
        self.database = database
    }

    /// Connects to the database at `address`, creating the tables that are missing.
    static func open(_ address: PostgresAddress) async throws -> PostgresAuthStore {
        PostgresAuthStore(
            database: try await ClusterDatabase.open(address, schema: PostgresAuthSchema.statements + PostgresAbuseCounters.statements))
    }

    var isShared: Bool { true }

    func makeAbuseCounters() -> any AbuseCounters {
        PostgresAbuseCounters(database: database)
    }

    static let changesTimeout: Duration = .seconds(3)

    func close() async {
        await database.close()
    }

    func unavailability() async -> String? {
        await database.unavailability()
    }

    // MARK: Users, action codes and the directory's settings

    /// Read page by page (``changes(after:)``), each as long as PostgreSQL lets a statement run.
    func everything() async throws -> AuthChanges {
        var everything = try await changes(after: 0, within: ClusterDatabase.statementTimeout)
        while !everything.complete {
            everything.merge(try await changes(after: everything.version, within: ClusterDatabase.statementTimeout))
        }
        return everything
    }

    /// An answer that takes longer than ``changesTimeout`` fails the request that asked (and the
    /// requests of the next moment, ``AuthDirectory``) rather than hold it; a page holds about
    /// ``pageRows`` rows, so that a node far behind catches up page by page.
    func changes(after version: Int64) async throws -> AuthChanges {
        try await changes(after: version, within: Self.changesTimeout)
    }

    /// Rows a page of changes holds at most, unless one version alone has more.
    static let pageRows = 2000

    /// The rows changed after `version`, up to a version that ends a page: the version before
    /// that of the first row past ``pageRows`` (or that version whole, when it is the first),
    /// in one statement and so one snapshot. The cut is found from the versions alone, which
    /// the tables' indexes give in order.
    private func changes(after version: Int64, within limit: Duration) async throws -> AuthChanges {
        let rows = try await database.query(
            """
            WITH cut AS (
              SELECT GREATEST(version - 1, \(version) + 1) AS version FROM (
                SELECT version FROM hearth_auth_users WHERE version > \(version)
                UNION ALL SELECT version FROM hearth_auth_codes WHERE version > \(version)
                UNION ALL SELECT version FROM hearth_auth_settings WHERE version > \(version)
              ) AS changed ORDER BY version OFFSET \(Self.pageRows) LIMIT 1
            ), bound AS (
              SELECT COALESCE((SELECT version FROM cut), 9223372036854775807) AS version
            )
            SELECT 'h', NULL, NULL, COALESCE((SELECT version FROM cut), (SELECT version FROM hearth_auth_head)),
              (SELECT count(*) FROM cut)
            UNION ALL SELECT 'u', local_id, record, version, 0 FROM hearth_auth_users
              WHERE version > \(version) AND version <= (SELECT version FROM bound)
            UNION ALL SELECT 'c', code, record, version, 0 FROM hearth_auth_codes
              WHERE version > \(version) AND version <= (SELECT version FROM bound)
            UNION ALL SELECT 's', name, value, version, 0 FROM hearth_auth_settings
              WHERE version > \(version) AND version <= (SELECT version FROM bound)
                AND name IN (\(AuthChanges.configSetting), \(AuthChanges.providersSetting))
            """, within: limit)
        var changes = AuthChanges(version: version)
        for row in rows {
            let (kind, key, record, rowVersion, cut) = try row.decode((String, String?, String?, Int64, Int64).self)
            switch (kind, key) {
            case ("h", _):
                changes.version = rowVersion
                changes.complete = cut == 0
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
        let rows = try await database.query("SELECT hearth_auth_commit(\(version), \(names), \(keys), \(values))")
        return try rows.first?.decode(Int64?.self)
    }

    // MARK: Sessions

    func session(tokenHash: String) async throws -> RefreshSession? {
        let rows = try await database.query("SELECT record FROM hearth_auth_sessions WHERE token_hash = \(tokenHash)")
        return try rows.first.map { try AuthStoreCoding.decode(RefreshSession.self, try $0.decode(String.self)) }
    }

    func removeSessions(of localIds: [String]) async throws {
        guard !localIds.isEmpty else { return }
        _ = try await database.query("DELETE FROM hearth_auth_sessions WHERE local_id = ANY(\(localIds))")
    }

    func removeSession(tokenHash: String) async throws {
        _ = try await database.query("DELETE FROM hearth_auth_sessions WHERE token_hash = \(tokenHash)")
    }

    func saveSession(_ session: RefreshSession, tokenHash: String) async throws {
        let record = try AuthStoreCoding.encode(session)
        _ = try await database.query(
            """
            INSERT INTO hearth_auth_sessions (token_hash, local_id, record) VALUES (\(tokenHash), \(session.localId), \(record))
            ON CONFLICT (token_hash) DO UPDATE SET local_id = EXCLUDED.local_id, record = EXCLUDED.record
            """)
    }

    // MARK: Service accounts

    func addServiceAccountKey(_ key: ServiceAccountKey) async throws {
        _ = try await database.query(
            """
            INSERT INTO hearth_auth_service_accounts (key_id, client_email, public_key_pem, created_at)
            VALUES (\(key.keyID), \(key.clientEmail), \(key.publicKeyPEM), \(key.createdAt))
            """)
    }

    func serviceAccountKeys() async throws -> [ServiceAccountKey] {
        try await database.query("SELECT key_id, client_email, public_key_pem, created_at FROM hearth_auth_service_accounts").map { row in
            let (keyID, clientEmail, publicKeyPEM, createdAt) = try row.decode((String, String, String, Int64).self)
            return ServiceAccountKey(keyID: keyID, clientEmail: clientEmail, publicKeyPEM: publicKeyPEM, createdAt: createdAt)
        }
    }

    func hasServiceAccountKey(_ keyID: String) async throws -> Bool {
        try await !database.query("SELECT 1 FROM hearth_auth_service_accounts WHERE key_id = \(keyID)").isEmpty
    }

    func removeServiceAccountKey(_ keyID: String) async throws -> Bool {
        try await !database.query("DELETE FROM hearth_auth_service_accounts WHERE key_id = \(keyID) RETURNING 1").isEmpty
    }

    // MARK: Database secrets

    func hasDatabaseSecret(hash: String) async throws -> Bool {
        try await !database.query("SELECT 1 FROM hearth_auth_database_secrets WHERE secret_hash = \(hash)").isEmpty
    }

    func addDatabaseSecret(id: String, hash: String, createdAt: Int64) async throws {
        _ = try await database.query(
            "INSERT INTO hearth_auth_database_secrets (id, secret_hash, created_at) VALUES (\(id), \(hash), \(createdAt))")
    }

    func databaseSecrets() async throws -> [(id: String, createdAt: Int64)] {
        try await database.query("SELECT id, created_at FROM hearth_auth_database_secrets ORDER BY created_at, id COLLATE \"C\"").map {
            try $0.decode((String, Int64).self)
        }
    }

    func removeDatabaseSecret(id: String) async throws -> Bool {
        try await !database.query("DELETE FROM hearth_auth_database_secrets WHERE id = \(id) RETURNING 1").isEmpty
    }

    // MARK: Settings

    func setting<Value: Decodable>(_ name: String, as type: Value.Type) async throws -> Value? {
        let rows = try await database.query("SELECT value FROM hearth_auth_settings WHERE name = \(name)")
        return try rows.first.map { try AuthStoreCoding.decode(type, try $0.decode(String.self)) }
    }

    /// Compares values as JSON (`jsonb`), not as text: what one node wrote, another re-encodes
    /// with its keys in another order.
    func replaceSetting(_ name: String, expected: (some Encodable & Sendable)?, with value: some Encodable & Sendable)
        async throws -> Bool
    {
        let new = try AuthStoreCoding.encode(value)
        guard let expected else {
            return try await !database.query(
                """
                INSERT INTO hearth_auth_settings (name, value) VALUES (\(name), \(new))
                ON CONFLICT (name) DO NOTHING RETURNING 1
                """
            ).isEmpty
        }
        let old = try AuthStoreCoding.encode(expected)
        return try await !database.query(
            """
            UPDATE hearth_auth_settings SET value = \(new)
            WHERE name = \(name) AND value::jsonb = \(old)::jsonb RETURNING 1
            """
        ).isEmpty
    }
}
