import Crypto
import HearthCore
import HearthEdge

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Mints and checks the tokens of Authentication: ID tokens, session cookies and refresh tokens.
///
/// Production signs ID tokens and session cookies with ``SigningKeys`` (RS256) and keeps refresh
/// sessions in the store behind opaque tokens, of which only a hash is stored. Development does
/// as the Firebase Auth emulator does (auth spec §4.4): unsigned tokens, accepted whatever their
/// signature or expiry, and refresh tokens that carry their session in base64 JSON.
struct TokenService: Sendable {
    let projectID: String
    let production: Bool
    let keys: SigningKeys
    let store: any AuthStore

    /// How a presented token failed its checks.
    enum Failure: Error, Equatable {
        case invalid
        case expired
    }

    func idToken(for user: UserRecord, session: RefreshSession, now: Int64) async throws -> String {
        try await mint(IDTokenClaims.make(for: user, session: session, projectID: projectID, now: now), now: now)
    }

    /// A session cookie: the verified ID token's claims re-issued for `duration` seconds (§4.7).
    func sessionCookie(from claims: JWTClaims, duration: Int64, now: Int64) async throws -> String {
        guard case .object(var members) = claims.json else { throw Failure.invalid }
        members.removeAll { ["iss", "iat", "exp"].contains($0.key) }
        members.append(JSONMember(key: "iss", value: .string(IDTokenClaims.sessionIssuer(projectID: projectID))))
        members.append(JSONMember(key: "iat", value: .number(.int(now))))
        members.append(JSONMember(key: "exp", value: .number(.int(now + duration))))
        return try await mint(.object(members), now: now)
    }

    private func mint(_ claims: JSONValue, now: Int64) async throws -> String {
        production ? try await keys.sign(JWTClaims(claims), now: now) : UnverifiedJWT.unsigned(claims)
    }

    /// The claims of `token` if it is a valid ID token for this project.
    ///
    /// Production: RS256 by a published key (one another node published is learned first), not
    /// expired, issued for this project by Hearth.
    /// Development: any JWT (the emulator checks no signature, expiry, audience or issuer).
    func verify(_ token: String, now: Int64) async throws(Failure) -> JWTClaims {
        guard production else {
            guard let (_, claims) = UnverifiedJWT.decode(token), claims.string("sub") ?? claims.string("user_id") != nil else {
                throw .invalid
            }
            return claims
        }
        guard let claims = await keys.verify(token) else { throw .invalid }
        guard claims.string("aud") == projectID, claims.string("iss") == IDTokenClaims.issuer(projectID: projectID),
            let subject = claims.string("sub"), (1...128).contains(subject.utf8.count),
            let issuedAt = claims.seconds("iat"), issuedAt <= now + 60, let expiry = claims.seconds("exp")
        else { throw .invalid }
        guard expiry > now else { throw .expired }
        return claims
    }

    // MARK: Refresh tokens

    private static let emulatorMarker = "_AuthEmulatorRefreshToken"

    /// A refresh token for `session`: in production a random opaque handle (its hash is stored),
    /// in development the emulator's base64 JSON form, with the session's start as `issuedAt`
    /// (which the emulator's lacks) so that revocation can refuse it.
    func refreshToken(for session: RefreshSession) async throws -> String {
        guard production else {
            var members = [
                JSONMember(key: Self.emulatorMarker, value: .string("DO NOT MODIFY")),
                JSONMember(key: "localId", value: .string(session.localId)),
                JSONMember(key: "provider", value: .string(session.provider)),
                JSONMember(
                    key: "extraClaims",
                    value: session.extraClaims.flatMap { try? JSONParser.parse($0) } ?? .object([])),
                JSONMember(key: "projectId", value: .string(session.projectId)),
                JSONMember(key: "authTime", value: .number(.int(session.authTime))),
                JSONMember(key: "issuedAt", value: .number(.int(session.issuedAt))),
            ]
            if let tenant = session.tenantId { members.append(JSONMember(key: "tenantId", value: .string(tenant))) }
            return Base64URL.standard(Array(JSONWriter.string(.object(members)).utf8))
        }
        let token = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
        try await store.saveSession(session, tokenHash: Hex.sha256(token))
        return token
    }

    /// The session a refresh token stands for, or `nil` if it stands for none.
    func session(forRefreshToken token: String) async throws -> RefreshSession? {
        guard production else {
            guard let bytes = Base64URL.decode(token), let json = try? JSONParser.parse(bytes),
                json[Self.emulatorMarker] != nil, case .string(let localId)? = json["localId"],
                case .string(let provider)? = json["provider"], case .string(let project)? = json["projectId"]
            else { return nil }
            var authTime: Int64 = 0
            if case .number(let number)? = json["authTime"] { authTime = Int64(number.doubleValue) }
            // A token made before sessions carried their start began no later than its sign-in.
            var issuedAt = authTime
            if case .number(let number)? = json["issuedAt"] { issuedAt = Int64(number.doubleValue) }
            var extraClaims: String?
            if case .object(let members)? = json["extraClaims"], !members.isEmpty {
                extraClaims = JSONWriter.string(.object(members))
            }
            var tenant: String?
            if case .string(let text)? = json["tenantId"] { tenant = text }
            return RefreshSession(
                localId: localId, provider: provider, extraClaims: extraClaims, projectId: project, tenantId: tenant,
                authTime: authTime, issuedAt: issuedAt)
        }
        return try await store.session(tokenHash: Hex.sha256(token))
    }

    /// Removes the stored session of a production refresh token.
    func forget(refreshToken token: String) async throws {
        try await store.removeSession(tokenHash: Hex.sha256(token))
    }
}
