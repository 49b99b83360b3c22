import HearthCore
import HearthEdge
import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Whom a Storage request acts for (spec storage-api §1.4, §14.1): its `Authorization` header
/// (`Firebase <token>` or `Bearer <token>`, ``AuthorizationHeader``), checked by the edge's
/// ``CredentialVerifying`` as every product's credentials are. No header is a signed-out caller; an
/// admin credential (`owner` in development, a database secret, a service account's token)
/// skips rules.
package struct StorageCredentials: Sendable {
    let verifier: any CredentialVerifying

    package init(verifier: any CredentialVerifying) {
        self.verifier = verifier
    }

    func caller(of request: Request) async throws(StorageError) -> StorageCaller {
        guard let token = AuthorizationHeader.token(in: request.headers) else { return .signedOut }
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
