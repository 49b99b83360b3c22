import HearthCore

extension AuthService {
    static let customTokenAudience =
        "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    /// `accounts:signInWithCustomToken` (auth spec §2.3): signs in (creating if needed) the uid a
    /// custom token names; its `claims` go into every ID token of the session.
    func signInWithCustomToken(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        guard let token = try body.string("token"), !token.isEmpty else { throw .code("MISSING_CUSTOM_TOKEN") }
        let claims = try await customTokenClaims(token, now: call.now)
        let uid: String
        switch claims["uid"] ?? claims["user_id"] {
        case .string(let text)?: uid = text
        case .number(let number)?: uid = number.description
        case .bool(let flag)?: uid = flag ? "true" : "false"
        default: throw .code("MISSING_IDENTIFIER")
        }
        guard (1...AccountLimits.localIdBytes).contains(uid.utf8.count) else {
            throw .code("INVALID_CUSTOM_TOKEN", "uid must be 1 to 128 characters")
        }
        // The claims go into every ID token of the session: they are held to the custom claims' rules.
        var extraClaims: String?
        switch claims["claims"] {
        case nil, .null?: break
        case .object(let members)?:
            let text = JSONWriter.string(.object(members))
            try AuthFormats.validateCustomClaims(text)
            if !members.isEmpty { extraClaims = text }
        default: throw .code("INVALID_CLAIMS")
        }
        let (user, isNew) = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> (UserRecord, Bool) in
            var user = state.users[uid] ?? UserRecord(localId: uid, createdAt: call.nowMilliseconds)
            let isNew = state.users[uid] == nil
            if user.disabled { throw .code("USER_DISABLED") }
            user.customAuth = true
            user.lastLoginAt = call.nowMilliseconds
            user.lastRefreshAt = call.nowMilliseconds
            state.users.put(user)
            return (user, isNew)
        }
        return .object(
            [
                JSONMember(key: "kind", value: .string("identitytoolkit#VerifyCustomTokenResponse")),
                JSONMember(key: "isNewUser", value: .bool(isNew)),
            ] + (try await tokenTriple(for: user, provider: "custom", extraClaims: extraClaims, call)))
    }

    /// The claims of a custom token. Production accepts only tokens signed by an issued
    /// service-account key (`iss` = `sub` = its email), for the Identity Toolkit audience,
    /// unexpired and living at most an hour. Development accepts, as the emulator does, a JSON
    /// object or any JWT for the Identity Toolkit audience, signed or not.
    private func customTokenClaims(_ token: String, now: Int64) async throws(AuthError) -> JSONValue {
        if settings.production {
            let invalid = AuthError.code(
                "INVALID_CUSTOM_TOKEN",
                "The custom token format is incorrect or the token is invalid for some reason (e.g. expired, invalid signature etc.)")
            guard let (claims, key) = await serviceAccounts.verify(token), claims.string("iss") == key.clientEmail,
                claims.string("sub") == key.clientEmail, claims.string("aud") == Self.customTokenAudience,
                let issuedAt = claims.seconds("iat"), let expiry = claims.seconds("exp"),
                issuedAt <= now + 60, expiry > now, expiry - issuedAt <= 3600
            else { throw invalid }
            return claims.json
        }
        if token.hasPrefix("{") {
            guard let claims = try? JSONParser.parse(token), case .object = claims else {
                throw .code("INVALID_CUSTOM_TOKEN", "((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))")
            }
            return claims
        }
        guard let (_, claims) = UnverifiedJWT.decode(token) else { throw .code("INVALID_CUSTOM_TOKEN", "Invalid assertion format") }
        guard claims.string("aud") == Self.customTokenAudience else {
            throw .code(
                "INVALID_CUSTOM_TOKEN",
                "((Invalid aud (audience): \(claims.string("aud") ?? "") Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))"
            )
        }
        return claims.json
    }
}
