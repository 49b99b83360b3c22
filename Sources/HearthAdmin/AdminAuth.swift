import Crypto
import CryptoExtras
import Foundation

/// Authentication as admin: ID-token verification, custom tokens, and user management.
public struct AdminAuth: Sendable {
    let client: AdminClient
    private let idTokenKeys = PublicKeyCache(path: "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")
    private let sessionCookieKeys = PublicKeyCache(path: "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys")

    init(client: AdminClient) {
        self.client = client
    }

    /// The claims of a valid ID token (its `sub` is the user's uid). With a service-account key
    /// the signature must be one of the server's published keys; with `checkRevoked`, a token
    /// issued before the user's tokens were revoked, or of a disabled user, is refused.
    public func verifyIDToken(_ token: String, checkRevoked: Bool = false) async throws -> VerifiedIDToken {
        try await verify(token, issuer: "https://securetoken.google.com/\(client.projectID)", keys: idTokenKeys, checkRevoked: checkRevoked)
    }

    /// A session cookie for a recently signed-in user's ID token, valid for `expiresIn`
    /// seconds (5 minutes to 2 weeks).
    public func createSessionCookie(idToken: String, expiresIn: TimeInterval) async throws -> String {
        let answer = try await client.auth(":createSessionCookie", ["idToken": idToken, "validDuration": Int(expiresIn)])
        guard let cookie = answer["sessionCookie"] as? String else { throw AdminError("internal-error", "no sessionCookie in the answer") }
        return cookie
    }

    /// The claims of a valid session cookie, checked as ``verifyIDToken(_:checkRevoked:)`` checks
    /// ID tokens, against the session-cookie keys.
    public func verifySessionCookie(_ cookie: String, checkRevoked: Bool = false) async throws -> VerifiedIDToken {
        try await verify(
            cookie, issuer: "https://session.firebase.google.com/\(client.projectID)", keys: sessionCookieKeys, checkRevoked: checkRevoked)
    }

    private func verify(_ token: String, issuer: String, keys: PublicKeyCache, checkRevoked: Bool) async throws -> VerifiedIDToken {
        guard let parts = JWT.parts(token) else { throw AdminError("invalid-id-token", "the token is not a JWT") }
        // Without a key, signatures go unchecked as with Firebase's emulators: only for a
        // development server on this machine.
        guard client.key != nil || client.isLoopback else {
            throw AdminError("invalid-credential", "verifying tokens of a server elsewhere needs a service-account key")
        }
        if client.key != nil {
            guard parts.header["alg"] as? String == "RS256", let keyID = parts.header["kid"] as? String,
                let key = try await keys.key(keyID, client: client),
                let valid = try? key.isValidSignature(
                    _RSA.Signing.RSASignature(rawRepresentation: parts.signature), for: Data(parts.signingInput.utf8),
                    padding: .insecurePKCS1v1_5),
                valid
            else { throw AdminError("invalid-id-token", "the token's signature is not one of the server's keys") }
        }
        let claims = parts.claims
        let now = Date().timeIntervalSince1970
        guard claims["aud"] as? String == client.projectID, claims["iss"] as? String == issuer else {
            throw AdminError("invalid-id-token", "the token is for another project or of another kind")
        }
        guard let exp = (claims["exp"] as? NSNumber)?.doubleValue, exp > now else {
            throw AdminError("id-token-expired", "the token has expired")
        }
        guard let issuedAt = (claims["iat"] as? NSNumber)?.doubleValue, issuedAt <= now + 300 else {
            throw AdminError("invalid-id-token", "the token is issued in the future")
        }
        guard let uid = claims["sub"] as? String, !uid.isEmpty, uid.utf8.count <= 128 else {
            throw AdminError("invalid-id-token", "the token's subject is empty or longer than 128 characters")
        }
        let verified = VerifiedIDToken(uid: uid, claims: claims)
        if checkRevoked {
            let user = try await getUser(uid: uid)
            if user.disabled { throw AdminError("user-disabled", "the user's account is disabled") }
            if let validAfter = user.tokensValidAfterTime, verified.authTime < validAfter {
                throw AdminError("id-token-revoked", "the user's tokens were revoked after this one was issued")
            }
        }
        return verified
    }

    /// A token a client signs in with (`signIn(withCustomToken:)`), carrying `claims` into the
    /// user's ID tokens; signed with the service-account key, or unsigned in development.
    public func createCustomToken(uid: String, claims: [String: any Sendable] = [:]) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        var payload: [String: Any] = [
            "aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
            "iat": now, "exp": now + 3600, "uid": uid,
        ]
        try AdminError.requireJSON(claims, "The custom token's claims")
        if !claims.isEmpty { payload["claims"] = claims }
        guard let key = client.key else {
            payload["iss"] = "firebase-auth-emulator@example.com"
            payload["sub"] = "firebase-auth-emulator@example.com"
            return JWT.unsigned(payload)
        }
        payload["iss"] = key.clientEmail
        payload["sub"] = key.clientEmail
        return try key.sign(payload)
    }

    // MARK: Users

    /// Creates an account; any field left `nil` is not set.
    public func createUser(_ properties: UserProperties) async throws -> UserRecord {
        let answer = try await client.auth("/accounts", properties.createBody)
        guard let uid = answer["localId"] as? String else { throw AdminError("internal-error", "no localId in the answer") }
        return try await getUser(uid: uid)
    }

    public func getUser(uid: String) async throws -> UserRecord {
        try await lookUp(["localId": [uid]])
    }

    public func getUser(email: String) async throws -> UserRecord {
        try await lookUp(["email": [email]])
    }

    private func lookUp(_ body: [String: Any]) async throws -> UserRecord {
        let answer = try await client.auth("/accounts:lookup", body)
        guard let record = (answer["users"] as? [[String: Any]])?.first else {
            throw AdminError("USER_NOT_FOUND", "no user record matches \(body)")
        }
        return UserRecord(record)
    }

    /// Changes the fields set in `properties` (a password, the email, disabling, …).
    public func updateUser(uid: String, _ properties: UserProperties) async throws -> UserRecord {
        var body = properties.updateBody
        body["localId"] = uid
        _ = try await client.auth("/accounts:update", body)
        return try await getUser(uid: uid)
    }

    public func deleteUser(uid: String) async throws {
        _ = try await client.auth("/accounts:delete", ["localId": uid])
    }

    /// One page of accounts in uid order; pass the page's `nextPageToken` for the next.
    public func listUsers(maxResults: Int = 1000, pageToken: String? = nil) async throws -> UserPage {
        var path = "/accounts:batchGet?maxResults=\(maxResults)"
        if let pageToken { path += "&nextPageToken=\(AdminClient.formEncoded(pageToken))" }
        let answer = try await client.auth(path, [:], method: .GET)
        let users = (answer["users"] as? [[String: Any]] ?? []).map(UserRecord.init)
        return UserPage(users: users, nextPageToken: (answer["nextPageToken"] as? String).flatMap { users.isEmpty ? nil : $0 })
    }

    /// Sets the claims every ID token of the user will carry (after its next refresh).
    public func setCustomUserClaims(uid: String, claims: [String: any Sendable]?) async throws {
        try AdminError.requireJSON(claims ?? [:], "The custom claims")
        let json = String(decoding: try JSONSerialization.data(withJSONObject: claims ?? [:]), as: UTF8.self)
        _ = try await client.auth("/accounts:update", ["localId": uid, "customAttributes": json])
    }

    /// Ends the user's sessions: refresh tokens stop working, and `verifyIDToken(checkRevoked:)`
    /// refuses ID tokens issued before now.
    public func revokeRefreshTokens(uid: String) async throws {
        _ = try await client.auth("/accounts:update", ["localId": uid, "validSince": String(Int(Date().timeIntervalSince1970))])
    }
}

/// A verified ID token's claims.
public struct VerifiedIDToken: @unchecked Sendable {
    public let uid: String
    /// Every claim: `email`, `firebase.sign_in_provider`, custom claims, …
    public let claims: [String: Any]

    /// When the user signed in (`auth_time`; `iat` for a token without it).
    public var authTime: Date {
        Date(timeIntervalSince1970: ((claims["auth_time"] ?? claims["iat"]) as? NSNumber)?.doubleValue ?? 0)
    }
}

/// The published public keys ID tokens are signed with, kept for as long as the server's
/// `Cache-Control: max-age` allows.
final class PublicKeyCache: @unchecked Sendable {
    /// Where the keys are published (a JWKS), on the server.
    let path: String
    private let lock = NSLock()
    private var keys: [String: _RSA.Signing.PublicKey] = [:]
    private var expires = Date.distantPast

    init(path: String) {
        self.path = path
    }

    private var lastFetch = Date.distantPast

    func key(_ id: String, client: AdminClient) async throws -> _RSA.Signing.PublicKey? {
        // Within the cache's life an unknown key id is refetched at most once a minute, so that
        // tokens naming made-up keys cannot make every call download the keys.
        let cached = lock.withLock { () -> (key: _RSA.Signing.PublicKey?, fresh: Bool) in
            (keys[id], expires > Date() && (keys[id] != nil || lastFetch.timeIntervalSinceNow > -60))
        }
        if cached.fresh { return cached.key }
        let url = client.server + path
        let (status, headers, body) = try await client.exchange(.GET, url, authorize: false)
        guard status == 200, let json = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else {
            throw AdminError("internal-error", "the public keys could not be read (HTTP \(status))", status: status)
        }
        var fetched: [String: _RSA.Signing.PublicKey] = [:]
        for entry in json["keys"] as? [[String: Any]] ?? [] {
            guard let kid = entry["kid"] as? String, let n = (entry["n"] as? String).flatMap({ JWT.decode($0[...]) }),
                let e = (entry["e"] as? String).flatMap({ JWT.decode($0[...]) })
            else { continue }
            fetched[kid] = try? _RSA.Signing.PublicKey(n: n, e: e)
        }
        let maxAge = Self.maxAge(headers.first(name: "Cache-Control") ?? "")
        lock.withLock {
            keys = fetched
            expires = Date().addingTimeInterval(maxAge)
            lastFetch = Date()
        }
        return fetched[id]
    }

    /// The `max-age` of a `Cache-Control` value, in seconds (0 when absent).
    static func maxAge(_ cacheControl: String) -> TimeInterval {
        for directive in cacheControl.split(separator: ",") {
            let pair = directive.trimmingCharacters(in: .whitespaces).split(separator: "=")
            if pair.count == 2, pair[0] == "max-age", let seconds = TimeInterval(pair[1]) { return seconds }
        }
        return 0
    }
}
