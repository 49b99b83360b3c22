import HearthCore

/// The claims of an ID token for a user and session (auth spec §4.2): profile claims first, then
/// the user's custom claims, then the session's custom-token claims, then the reserved claims,
/// which therefore always win.
enum IDTokenClaims {
    static let reservedNames: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time", "firebase",
        "at_hash", "c_hash",
    ]

    static func issuer(projectID: String) -> String { "https://securetoken.google.com/\(projectID)" }
    static func sessionIssuer(projectID: String) -> String { "https://session.firebase.google.com/\(projectID)" }

    static func make(for user: UserRecord, session: RefreshSession, projectID: String, now: Int64) -> JSONValue {
        var claims: [JSONMember] = []
        func set(_ key: String, _ value: JSONValue) {
            claims.removeAll { $0.key == key }
            claims.append(JSONMember(key: key, value: value))
        }
        if let name = user.displayName { set("name", .string(name)) }
        if let picture = user.photoUrl { set("picture", .string(picture)) }
        for text in [user.customAttributes, session.extraClaims].compactMap({ $0 }) {
            if case .object(let members)? = try? JSONParser.parse(text) {
                for member in members { set(member.key, member.value) }
            }
        }
        set("iss", .string(issuer(projectID: projectID)))
        set("aud", .string(projectID))
        set("auth_time", .number(.int(session.authTime)))
        set("user_id", .string(user.localId))
        set("sub", .string(user.localId))
        set("iat", .number(.int(now)))
        set("exp", .number(.int(now + 3600)))
        if let email = user.email { set("email", .string(email)) }
        if let verified = user.emailVerified { set("email_verified", .bool(verified)) }
        if let phone = user.phoneNumber { set("phone_number", .string(phone)) }
        if session.provider == "anonymous" { set("provider_id", .string("anonymous")) }
        var firebase: [JSONMember] = [JSONMember(key: "identities", value: identities(of: user))]
        firebase.append(JSONMember(key: "sign_in_provider", value: .string(session.provider)))
        if let tenant = session.tenantId { firebase.append(JSONMember(key: "tenant", value: .string(tenant))) }
        set("firebase", .object(firebase))
        return .object(claims)
    }

    /// `firebase.identities`: the email, the phone and every linked provider's ids.
    static func identities(of user: UserRecord) -> JSONValue {
        var identities: [JSONMember] = []
        if let email = user.email { identities.append(JSONMember(key: "email", value: .array([.string(email)]))) }
        if let phone = user.phoneNumber { identities.append(JSONMember(key: "phone", value: .array([.string(phone)]))) }
        for provider in user.providers {
            identities.append(JSONMember(key: provider.providerId, value: .array([.string(provider.rawId)])))
        }
        return .object(identities)
    }
}
