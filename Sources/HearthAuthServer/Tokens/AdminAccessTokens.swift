import HearthCore

/// OAuth2 access tokens for service accounts (auth spec §1.2's privileged credential): issued at
/// the token endpoint for an assertion signed with a service-account key, accepted as
/// `Authorization: Bearer` by Authentication's admin endpoints and by the database.
///
/// A token is a JWT signed with Hearth's own keys, typed `at+jwt` (RFC 9068) so that it is told
/// from an ID token by its header alone; checking it needs no lookup but the key it names still
/// being issued.
extension AuthService {
    static let accessTokenIssuer = "https://oauth2.hearth"
    static let accessTokenType = "at+jwt"
    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// A failed token request, answered as Google's token endpoint answers: 400
    /// `{"error":…,"error_description":…}`.
    struct OAuthError: Error {
        let error: String
        let description: String
    }

    private var accessTokenAudience: String { "\(settings.projectID)#admin" }

    /// `POST /oauth2.googleapis.com/token` with `grant_type` = the JWT-bearer grant and an
    /// `assertion` signed by an issued service-account key, for at most an hour.
    func exchange(_ body: AuthRequestBody, now: Int64) async throws(OAuthError) -> JSONValue {
        let grant = (try? body.string("grantType")) ?? nil
        guard grant == Self.jwtBearerGrant else {
            throw OAuthError(error: "unsupported_grant_type", description: "Invalid grant_type: \(grant ?? "")")
        }
        guard let assertion = (try? body.string("assertion")) ?? nil else {
            throw OAuthError(error: "invalid_request", description: "Missing required parameter: assertion")
        }
        guard let (claims, key) = await serviceAccounts.verify(assertion) else {
            throw OAuthError(error: "invalid_grant", description: "Invalid JWT Signature.")
        }
        guard claims.string("iss") == key.clientEmail,
            let audience = claims.string("aud"), audience.hasSuffix(ServiceAccounts.tokenPath),
            let issuedAt = claims.seconds("iat"), let expiry = claims.seconds("exp"),
            issuedAt <= now + 60, expiry > now, expiry - issuedAt <= 3600
        else {
            throw OAuthError(
                error: "invalid_grant",
                description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
        }
        let accessClaims = JSONValue.object([
            JSONMember(key: "iss", value: .string(Self.accessTokenIssuer)),
            JSONMember(key: "aud", value: .string(accessTokenAudience)),
            JSONMember(key: "sub", value: .string(key.clientEmail)),
            JSONMember(key: "key_id", value: .string(key.keyID)),
            JSONMember(key: "scope", value: claims["scope"] ?? .string("")),
            JSONMember(key: "iat", value: .number(.int(now))),
            JSONMember(key: "exp", value: .number(.int(now + 3600))),
        ])
        let token: String
        do {
            token = try await tokens.keys.sign(JWTClaims(accessClaims), type: Self.accessTokenType, now: now)
        } catch {
            throw OAuthError(error: "internal_failure", description: "Could not sign the access token.")
        }
        return .object([
            JSONMember(key: "access_token", value: .string(token)),
            JSONMember(key: "expires_in", value: .number(.int(3599))),
            JSONMember(key: "token_type", value: .string("Bearer")),
        ])
    }

    /// An admin access token for the console administrator `email`, valid an hour: the console
    /// presents it to every product on the administrator's behalf. It names the administrator
    /// (`console:<email>`) where a service account's names its key.
    package func consoleAccessToken(for email: String, now: Int64) async -> String? {
        let claims = JSONValue.object([
            JSONMember(key: "iss", value: .string(Self.accessTokenIssuer)),
            JSONMember(key: "aud", value: .string(accessTokenAudience)),
            JSONMember(key: "sub", value: .string(Self.consoleSubjectPrefix + email)),
            JSONMember(key: "iat", value: .number(.int(now))),
            JSONMember(key: "exp", value: .number(.int(now + Self.consoleAccessTokenLifetime))),
        ])
        return try? await tokens.keys.sign(JWTClaims(claims), type: Self.accessTokenType, now: now)
    }

    static let consoleSubjectPrefix = "console:"
    package static let consoleAccessTokenLifetime: Int64 = 3600

    /// Whether `credential` is an unexpired access token of a service account that still exists,
    /// or of a console administrator.
    func isAdminAccessToken(_ credential: String, now: Int64) async -> Bool {
        // Only a token typed as an access token is worth a signature check.
        guard UnverifiedJWT.header(of: credential)?["typ"] == .string(Self.accessTokenType),
            let claims = await tokens.keys.verify(credential), claims.string("iss") == Self.accessTokenIssuer,
            claims.string("aud") == accessTokenAudience,
            let expiry = claims.seconds("exp"), expiry > now
        else { return false }
        guard let keyID = claims.string("key_id") else {
            return claims.string("sub")?.hasPrefix(Self.consoleSubjectPrefix) == true
        }
        return (try? await tokens.store.hasServiceAccountKey(keyID)) ?? false
    }

    var serviceAccounts: ServiceAccounts { ServiceAccounts(store: tokens.store) }
}
