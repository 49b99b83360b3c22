import HearthCore
import HearthEdge
import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Whom a Storage request acts for (spec storage-api §1.4, §14.1): the second word of its
/// `Authorization` header (`Firebase <token>` or `Bearer <token>`), checked by the same
/// ``CredentialVerifier`` as the database's credentials. No header is a signed-out caller; an
/// admin credential (`owner` in development, a database secret, a service account's token)
/// skips rules.
struct StorageCredentials: Sendable {
    let verifier: CredentialVerifier

    func caller(of request: Request) async throws(StorageError) -> StorageCaller {
        guard let header = request.headers[.authorization] else { return .signedOut }
        let words = header.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count >= 2 else { return .signedOut }
        let token = String(words[1])
        let caller: Caller
        do {
            caller = try await verifier.caller(
                credential: token, authvar: nil, noauth: false, now: Int64(Date().timeIntervalSince1970)
            ).0
        } catch {
            throw .invalidCredential
        }
        switch caller {
        case .admin: return .admin
        case .client(let auth):
            guard case .string(let uid)? = auth["uid"] else { return .signedOut }
            return .user(uid: uid, claims: JSONWriter.string(auth["token"] ?? .object([])))
        }
    }

    /// Whether the request carries an admin credential (the token endpoints of §5).
    func isAdmin(_ request: Request) async -> Bool {
        (try? await caller(of: request)) == .admin
    }
}
