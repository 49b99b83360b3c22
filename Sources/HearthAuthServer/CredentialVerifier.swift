import HearthCore
import HearthEdge

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Authentication's side of the edge's ``CredentialVerifying``: reads the credential any
/// product's client presents (REST `auth=`, `access_token=`, `Authorization`; realtime
/// `auth`/`gauth`; Storage's and the Identity Toolkit's `Authorization`) as the ``Caller`` rules
/// see, with one admin decision (``isAdmin(_:now:)``) for every product, transport and mode.
///
/// Production trusts as users only ID tokens Hearth signed that are unexpired, for this project,
/// and not revoked (`validSince`) or of a disabled or deleted user. Development reads credentials
/// as the Firebase emulators do: any JWT's claims are believed until its `exp`.
package struct CredentialVerifier: CredentialVerifying {
    let auth: AuthService

    package func caller(credential: String, authvar: JSONValue?, noauth: Bool, now: Int64) async throws(CredentialFailure) -> (
        Caller, expires: Int64
    ) {
        // An admin credential acts as `authvar` when one is given, as nobody with `noauth`.
        func admin() -> (Caller, expires: Int64) {
            if noauth { return (.signedOut, now + 3600) }
            if let authvar, authvar != .null { return (.client(auth: authvar), now + 3600) }
            return (.admin, now + 3600)
        }
        if await isAdmin(credential, now: now) { return admin() }
        let claims: JWTClaims
        do {
            claims = try await auth.tokens.verify(credential, now: now)
        } catch {
            throw error == .expired ? .expired : .invalid
        }
        let uid = claims.string("sub") ?? claims.string("user_id") ?? ""
        if let expiry = claims.seconds("exp"), expiry <= now { throw .expired }
        if auth.settings.production {
            // Accounts that cannot be read now (a cluster's PostgreSQL out of reach) let no one in.
            guard let user = try? await auth.directory.read({ $0.users[uid] }), !user.disabled else { throw .invalid }
            if let validSince = user.validSince, (claims.seconds("iat") ?? 0) < validSince { throw .invalid }
        }
        let provider = claims["firebase"]?["sign_in_provider"] ?? .string("custom")
        let variable = JSONValue.object([
            JSONMember(key: "uid", value: .string(uid)),
            JSONMember(key: "provider", value: provider),
            JSONMember(key: "token", value: claims.json),
        ])
        return (.client(auth: variable), claims.seconds("exp") ?? now + 3600)
    }
}

extension CredentialVerifier {
    /// Waits until `credential` stops being valid — its expiry passes or its user's tokens are
    /// revoked — and returns why; `nil` if the task is cancelled first, or the credential never
    /// lapses (admin credentials).
    package func lapse(of credential: String, authvar: JSONValue?, noauth: Bool) async -> CredentialFailure? {
        let now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        // The subject is read without checks only to subscribe before verifying: a revocation
        // between the check and the subscription is then not missed.
        guard let subject = UnverifiedJWT.decode(credential).flatMap({ $0.claims.string("sub") ?? $0.claims.string("user_id") })
        else { return nil }
        let revocations = auth.directory.revocations.revocations(of: subject)
        let expires: Int64
        do throws(CredentialFailure) {
            let (caller, expiry) = try await caller(credential: credential, authvar: authvar, noauth: noauth, now: now())
            guard case .client = caller else { return nil }
            expires = expiry
        } catch {
            return error
        }
        return await withTaskGroup(of: CredentialFailure?.self) { group in
            group.addTask {
                try? await Task.sleep(for: .seconds(max(0, expires - now())) + .milliseconds(10))
                return Task.isCancelled ? nil : .expired
            }
            group.addTask {
                for await _ in revocations {
                    do throws(CredentialFailure) {
                        _ = try await caller(credential: credential, authvar: authvar, noauth: noauth, now: now())
                    } catch {
                        return error
                    }
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

extension CredentialVerifier {
    /// Administrative access in every product: a service account's access token and a database
    /// secret (`hearth database:secret create`) in both modes; in development also `owner` (in
    /// any case) and Google-style `ya29.` OAuth tokens, as the emulators accept them.
    package func isAdmin(_ credential: String, now: Int64) async -> Bool {
        if !auth.settings.production, credential.lowercased() == "owner" || credential.hasPrefix("ya29.") { return true }
        if await DatabaseSecrets(store: auth.directory.store).accepts(credential) { return true }
        return await auth.isAdminAccessToken(credential, now: now)
    }
}

extension AuthService {
    /// The verifier every product reads credentials with.
    package var credentials: CredentialVerifier { CredentialVerifier(auth: self) }
}
