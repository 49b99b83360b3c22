import Crypto
import HearthCore
import Logging

/// Database secrets: Firebase's legacy admin credential for the Realtime Database, sent as
/// `auth=<secret>`. Only the SHA-256 of a secret is stored; its id (the first 8 characters) names
/// it in listings and revocations.
public struct DatabaseSecrets: Sendable {
    let store: any AuthStore

    /// The secrets of the store at `location` (created if needed).
    package static func open(_ location: AuthStoreLocation, logger: Logger) async throws -> DatabaseSecrets {
        DatabaseSecrets(store: try await location.open(logger: logger))
    }

    public func close() async {
        await store.close()
    }

    /// A new secret: 40 random letters and digits. It is shown only now.
    public func create(now: Int64) async throws -> (id: String, secret: String) {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        let secret = String((0..<40).map { _ in alphabet.randomElement()! })
        let id = String(secret.prefix(8))
        try await store.addDatabaseSecret(id: id, hash: Hex.sha256(secret), createdAt: now)
        return (id, secret)
    }

    public func list() async throws -> [(id: String, createdAt: Int64)] {
        try await store.databaseSecrets()
    }

    /// Revokes secret `id`; whether it existed.
    public func revoke(id: String) async throws -> Bool {
        try await store.removeDatabaseSecret(id: id)
    }

    /// Whether `credential` is one of the secrets.
    func accepts(_ credential: String) async -> Bool {
        guard credential.utf8.count == 40 else { return false }
        return (try? await store.hasDatabaseSecret(hash: Hex.sha256(credential))) ?? false
    }
}
