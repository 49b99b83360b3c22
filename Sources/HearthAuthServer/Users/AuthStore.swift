import HearthPostgres
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The durable state of Authentication: accounts, action codes, refresh sessions, settings (hash
/// configuration, signing keys, project and provider configurations), database secrets and
/// service-account keys.
///
/// Two stores keep it: ``SQLiteAuthStore`` in the data directory, changed by one process, and
/// ``PostgresAuthStore`` in PostgreSQL, shared by every node of a cluster. In a shared store
/// every change of accounts, codes and the directory's settings raises one version number, so
/// that a node learns what the others changed (``changes(after:)``) and a change based on an old
/// version is refused rather than applied over one it did not see.
protocol AuthStore: Sendable {
    /// Whether other processes change the same state (a store in PostgreSQL).
    var isShared: Bool { get }

    /// Where production's abuse limits count, beside this store's state.
    func makeAbuseCounters() -> any AbuseCounters

    /// Every account, action code and directory setting, with the version they bring the
    /// reader to.
    func everything() async throws -> AuthChanges

    /// The accounts, action codes and directory settings changed after `version`, with the
    /// version they bring the reader to, or a failure soon (it is asked before every request).
    /// Only a shared store is asked.
    func changes(after version: Int64) async throws -> AuthChanges

    /// Applies `operations` in order, atomically and durably, if the store is still at `version`;
    /// the version it is at afterwards, or `nil` (nothing applied) when another change came first.
    /// A store that is not shared applies them whatever `version` says.
    func commit(_ operations: [AuthStoreOperation], basedOn version: Int64) async throws -> Int64?

    func session(tokenHash: String) async throws -> RefreshSession?
    /// Removes every session of the accounts `localIds`.
    func removeSessions(of localIds: [String]) async throws
    func removeSession(tokenHash: String) async throws
    func saveSession(_ session: RefreshSession, tokenHash: String) async throws

    func addServiceAccountKey(_ key: ServiceAccountKey) async throws
    func serviceAccountKeys() async throws -> [ServiceAccountKey]
    /// Whether service-account key `keyID` is issued (and not revoked).
    func hasServiceAccountKey(_ keyID: String) async throws -> Bool
    /// Removes the service-account key `keyID`; whether it existed.
    func removeServiceAccountKey(_ keyID: String) async throws -> Bool

    /// Whether a database secret with this hash exists (read anew each time, so that a
    /// revocation takes effect at once).
    func hasDatabaseSecret(hash: String) async throws -> Bool
    func addDatabaseSecret(id: String, hash: String, createdAt: Int64) async throws
    /// The secrets' ids and creation times (seconds), oldest first.
    func databaseSecrets() async throws -> [(id: String, createdAt: Int64)]
    /// Removes the secret `id`; whether it existed.
    func removeDatabaseSecret(id: String) async throws -> Bool

    func setting<Value: Decodable>(_ name: String, as type: Value.Type) async throws -> Value?
    /// Sets setting `name` to `value` if it still holds `expected` (`nil`: if it is not set);
    /// whether it did. Nodes starting or rotating keys together so agree on one value.
    func replaceSetting(_ name: String, expected: (some Encodable & Sendable)?, with value: some Encodable & Sendable)
        async throws -> Bool

    /// Why the store cannot be used now, or `nil` when it can.
    func unavailability() async -> String?
    func close() async
}

/// Where Authentication keeps its state.
package enum AuthStoreLocation: Sendable {
    /// `<data dir>/auth/auth.sqlite`.
    case dataDirectory(String)
    /// PostgreSQL, shared by every node given the same database.
    case postgres(PostgresAddress)

    /// Opens (creating if needed) the store at this location.
    func open(logger: Logger) async throws -> any AuthStore {
        switch self {
        case .dataDirectory(let directory): try await SQLiteAuthStore.open(dataDirectory: directory, logger: logger)
        case .postgres(let address): try await PostgresAuthStore.open(address)
        }
    }
}

/// One operation of an ``AuthStore/commit(_:basedOn:)``.
enum AuthStoreOperation: Sendable {
    case putUser(UserRecord)
    case deleteUser(String)
    case clearUsers
    case putCode(ActionCode)
    case deleteCode(String)
    case putSetting(String, any Encodable & Sendable)

    /// The operation's name, key and JSON value, as both stores' commits take them.
    func row() throws -> (name: String, key: String?, value: String?) {
        switch self {
        case .putUser(let user): ("put_user", user.localId, try AuthStoreCoding.encode(user))
        case .deleteUser(let localId): ("delete_user", localId, nil)
        case .clearUsers: ("clear_users", nil, nil)
        case .putCode(let code): ("put_code", code.code, try AuthStoreCoding.encode(code))
        case .deleteCode(let code): ("delete_code", code, nil)
        case .putSetting(let name, let setting): ("put_setting", name, try AuthStoreCoding.encode(setting))
        }
    }
}

/// Accounts, action codes and directory settings read from an ``AuthStore``: all of them, or
/// those changed after a version.
struct AuthChanges: Sendable {
    /// The settings that belong to the directory (and so to its versions).
    static let configSetting = "config"
    static let providersSetting = "providerConfigs"

    /// The version the store was at when read, or up to which a page reads it.
    var version: Int64
    /// Whether these are all the changes up to the store's version when read; a page of them is
    /// followed by the next page, read after ``version``.
    var complete = true
    /// Accounts by uid: `.some(nil)` for an account removed.
    var users: [String: UserRecord?] = [:]
    /// Action codes by code: `.some(nil)` for a code used or expired.
    var codes: [String: ActionCode?] = [:]
    var config: ProjectAuthConfig?
    var providers: ProviderConfigs?

    /// Takes in the next page, read after this one's version.
    mutating func merge(_ next: AuthChanges) {
        version = next.version
        complete = next.complete
        users.merge(next.users) { _, newer in newer }
        codes.merge(next.codes) { _, newer in newer }
        config = next.config ?? config
        providers = next.providers ?? providers
    }
}

/// How records are kept in both stores: as JSON text.
enum AuthStoreCoding {
    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ text: String?) throws -> Value {
        guard let text else { throw AuthStoreError.corruptRow }
        return try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}

/// A row of the auth store that cannot be read.
enum AuthStoreError: Error {
    case corruptRow
}
