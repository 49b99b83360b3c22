import HearthSupport
import Logging
import SQLiteNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The durable state of Authentication on one node: one SQLite database,
/// `<data dir>/auth/auth.sqlite`, in WAL mode with `synchronous=FULL`, so a change is on disk before the request that made it is
/// answered.
///
/// A change of accounts, action codes and settings is one SQL statement (an INSERT into the
/// `auth_commit` view, whose triggers apply each operation in order), hence atomic; the
/// connection runs statements in the order they are issued. Records are stored as JSON text:
/// - `users`: one row per account;
/// - `sessions`: refresh-token sessions by the SHA-256 of their token (production tokens are
///   opaque handles); a session outlives its deleted user until it is next presented, so that
///   it is answered `USER_NOT_FOUND` as Firebase answers it;
/// - `oob_codes`: unused email action codes;
/// - `settings`: the project's hash configuration, signing keys, emulator configuration and OIDC and
///   SAML provider configurations;
/// - `database_secrets`: the legacy admin credentials of the database, by the SHA-256 of the secret;
/// - `service_accounts`: the public keys of issued service-account key files.
final class SQLiteAuthStore: AuthStore {
    let connection: SQLiteConnection

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// The database file under data directory `dataDirectory`.
    static func path(dataDirectory: String) -> String { dataDirectory + "/auth/auth.sqlite" }

    /// Opens (creating if needed) the store of data directory `dataDirectory`.
    static func open(dataDirectory: String, logger: Logger) async throws -> SQLiteAuthStore {
        try FileManager.default.createDirectory(atPath: dataDirectory + "/auth", withIntermediateDirectories: true)
        let connection = try await DurableSQLite.open(
            path: path(dataDirectory: dataDirectory),
            schema: [
                "CREATE TABLE IF NOT EXISTS users (local_id TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID",
                """
                CREATE TABLE IF NOT EXISTS sessions (token_hash TEXT PRIMARY KEY, local_id TEXT NOT NULL, record TEXT NOT NULL)
                WITHOUT ROWID
                """,
                "CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (local_id)",
                "CREATE TABLE IF NOT EXISTS oob_codes (code TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID",
                "CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
                """
                CREATE TABLE IF NOT EXISTS service_accounts (key_id TEXT PRIMARY KEY, client_email TEXT NOT NULL,
                public_key_pem TEXT NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID
                """,
                "CREATE TEMP VIEW auth_commit AS SELECT NULL AS operation, NULL AS key, NULL AS value",
                """
                CREATE TEMP TRIGGER auth_commit_put_user INSTEAD OF INSERT ON auth_commit WHEN NEW.operation = 'put_user' BEGIN
                  INSERT OR REPLACE INTO users (local_id, record) VALUES (NEW.key, NEW.value);
                END
                """,
                """
                CREATE TEMP TRIGGER auth_commit_delete_user INSTEAD OF INSERT ON auth_commit WHEN NEW.operation = 'delete_user'
                BEGIN
                  DELETE FROM users WHERE local_id = NEW.key;
                END
                """,
                """
                CREATE TEMP TRIGGER auth_commit_clear_users INSTEAD OF INSERT ON auth_commit WHEN NEW.operation = 'clear_users'
                BEGIN
                  DELETE FROM users;
                END
                """,
                """
                CREATE TEMP TRIGGER auth_commit_put_code INSTEAD OF INSERT ON auth_commit WHEN NEW.operation = 'put_code' BEGIN
                  INSERT OR REPLACE INTO oob_codes (code, record) VALUES (NEW.key, NEW.value);
                END
                """,
                """
                CREATE TEMP TRIGGER auth_commit_delete_code INSTEAD OF INSERT ON auth_commit WHEN NEW.operation = 'delete_code'
                BEGIN
                  DELETE FROM oob_codes WHERE code = NEW.key;
                END
                """,
                """
                CREATE TEMP TRIGGER auth_commit_put_setting INSTEAD OF INSERT ON auth_commit WHEN NEW.operation = 'put_setting'
                BEGIN
                  INSERT OR REPLACE INTO settings (name, value) VALUES (NEW.key, NEW.value);
                END
                """,
                """
                CREATE TABLE IF NOT EXISTS database_secrets (id TEXT PRIMARY KEY, secret_hash TEXT NOT NULL UNIQUE,
                created_at INTEGER NOT NULL) WITHOUT ROWID
                """,
            ], logger: logger)
        return SQLiteAuthStore(connection: connection)
    }

    func close() async {
        try? await connection.close()
    }

    /// Why the store cannot be used now, or `nil` (``DurableSQLite/unavailability(of:)``).
    func unavailability() async -> String? {
        await DurableSQLite.unavailability(of: connection)
    }

    /// Changed by this process alone: nothing changes behind the directory's back.
    var isShared: Bool { false }

    func makeAbuseCounters() -> any AbuseCounters {
        MemoryAbuseCounters()
    }

    // MARK: Users, action codes and the directory's settings

    /// Everything: no other process changes this store, so its version stays 0.
    func everything() async throws -> AuthChanges {
        var changes = AuthChanges(version: 0)
        for row in try await connection.query("SELECT record FROM users") {
            let user = try AuthStoreCoding.decode(UserRecord.self, row.column("record")?.string)
            changes.users[user.localId] = .some(user)
        }
        for row in try await connection.query("SELECT record FROM oob_codes") {
            let code = try AuthStoreCoding.decode(ActionCode.self, row.column("record")?.string)
            changes.codes[code.code] = .some(code)
        }
        changes.config = try await setting(AuthChanges.configSetting, as: ProjectAuthConfig.self)
        changes.providers = try await setting(AuthChanges.providersSetting, as: ProviderConfigs.self)
        return changes
    }

    /// Everything (never asked: the store is not shared).
    func changes(after version: Int64) async throws -> AuthChanges {
        try await everything()
    }

    /// Applies `operations` in order, atomically and durably, in one statement; never stale.
    func commit(_ operations: [AuthStoreOperation], basedOn version: Int64) async throws -> Int64? {
        guard !operations.isEmpty else { return version }
        var bindings: [SQLiteData] = []
        for operation in operations {
            let (name, key, value) = try operation.row()
            bindings += [.text(name), key.map { .text($0) } ?? .null, value.map { .text($0) } ?? .null]
        }
        let rows = Array(repeating: "(?, ?, ?)", count: operations.count).joined(separator: ", ")
        _ = try await connection.query("INSERT INTO auth_commit (operation, key, value) VALUES \(rows)", bindings)
        return version
    }

    // MARK: Sessions

    func session(tokenHash: String) async throws -> RefreshSession? {
        let rows = try await connection.query("SELECT record FROM sessions WHERE token_hash = ?1", [.text(tokenHash)])
        guard let row = rows.first else { return nil }
        return try AuthStoreCoding.decode(RefreshSession.self, row.column("record")?.string)
    }

    /// Removes every session of the accounts `localIds`.
    func removeSessions(of localIds: [String]) async throws {
        guard !localIds.isEmpty else { return }
        let marks = Array(repeating: "?", count: localIds.count).joined(separator: ", ")
        _ = try await connection.query("DELETE FROM sessions WHERE local_id IN (\(marks))", localIds.map { .text($0) })
    }

    func removeSession(tokenHash: String) async throws {
        _ = try await connection.query("DELETE FROM sessions WHERE token_hash = ?1", [.text(tokenHash)])
    }

    func saveSession(_ session: RefreshSession, tokenHash: String) async throws {
        _ = try await connection.query(
            "INSERT OR REPLACE INTO sessions (token_hash, local_id, record) VALUES (?1, ?2, ?3)",
            [.text(tokenHash), .text(session.localId), .text(try AuthStoreCoding.encode(session))])
    }

    // MARK: Service accounts

    func addServiceAccountKey(_ key: ServiceAccountKey) async throws {
        _ = try await connection.query(
            "INSERT INTO service_accounts (key_id, client_email, public_key_pem, created_at) VALUES (?1, ?2, ?3, ?4)",
            [.text(key.keyID), .text(key.clientEmail), .text(key.publicKeyPEM), .integer(Int(key.createdAt))])
    }

    func serviceAccountKeys() async throws -> [ServiceAccountKey] {
        try await connection.query("SELECT key_id, client_email, public_key_pem, created_at FROM service_accounts").map { row in
            ServiceAccountKey(
                keyID: row.column("key_id")?.string ?? "", clientEmail: row.column("client_email")?.string ?? "",
                publicKeyPEM: row.column("public_key_pem")?.string ?? "",
                createdAt: Int64(row.column("created_at")?.integer ?? 0))
        }
    }

    /// Whether service-account key `keyID` is issued (and not revoked).
    func hasServiceAccountKey(_ keyID: String) async throws -> Bool {
        try await !connection.query("SELECT 1 FROM service_accounts WHERE key_id = ?1", [.text(keyID)]).isEmpty
    }

    /// Removes the service-account key `keyID`; whether it existed.
    func removeServiceAccountKey(_ keyID: String) async throws -> Bool {
        let existed = try await hasServiceAccountKey(keyID)
        _ = try await connection.query("DELETE FROM service_accounts WHERE key_id = ?1", [.text(keyID)])
        return existed
    }

    // MARK: Database secrets

    /// Whether a secret with this hash exists (read anew each time, so a revocation takes effect at once).
    func hasDatabaseSecret(hash: String) async throws -> Bool {
        try await !connection.query("SELECT 1 FROM database_secrets WHERE secret_hash = ?1", [.text(hash)]).isEmpty
    }

    func addDatabaseSecret(id: String, hash: String, createdAt: Int64) async throws {
        _ = try await connection.query(
            "INSERT INTO database_secrets (id, secret_hash, created_at) VALUES (?1, ?2, ?3)",
            [.text(id), .text(hash), .integer(Int(createdAt))])
    }

    /// The secrets' ids and creation times (seconds), oldest first.
    func databaseSecrets() async throws -> [(id: String, createdAt: Int64)] {
        try await connection.query("SELECT id, created_at FROM database_secrets ORDER BY created_at, id").map { row in
            (row.column("id")?.string ?? "", Int64(row.column("created_at")?.integer ?? 0))
        }
    }

    /// Removes the secret `id`; whether it existed.
    func removeDatabaseSecret(id: String) async throws -> Bool {
        let existed = try await !connection.query("SELECT 1 FROM database_secrets WHERE id = ?1", [.text(id)]).isEmpty
        _ = try await connection.query("DELETE FROM database_secrets WHERE id = ?1", [.text(id)])
        return existed
    }

    // MARK: Settings

    func setting<Value: Decodable>(_ name: String, as type: Value.Type) async throws -> Value? {
        let rows = try await connection.query("SELECT value FROM settings WHERE name = ?1", [.text(name)])
        guard let row = rows.first else { return nil }
        return try AuthStoreCoding.decode(type, row.column("value")?.string)
    }

    /// Inserts a setting not set yet, or replaces one: no other process writes this store, and
    /// the one reader of each setting that replaces it does so in turn (``SigningKeys``).
    func replaceSetting(_ name: String, expected: (some Encodable & Sendable)?, with value: some Encodable & Sendable)
        async throws -> Bool
    {
        let conflict = expected == nil ? "DO NOTHING" : "DO UPDATE SET value = excluded.value"
        return try await !connection.query(
            "INSERT INTO settings (name, value) VALUES (?1, ?2) ON CONFLICT (name) \(conflict) RETURNING 1",
            [.text(name), .text(try AuthStoreCoding.encode(value))]
        ).isEmpty
    }
}
