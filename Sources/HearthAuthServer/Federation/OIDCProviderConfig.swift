import HearthCore

/// An OpenID Connect provider of the project (Identity Toolkit v2 `OAuthIdpConfig`, the Admin
/// SDKs' `OIDCProviderConfig`).
struct OIDCProviderConfig: ProviderConfiguration {
    static let kind = ProviderKind.oidc
    static let paths = ["clientId", "issuer", "displayName", "enabled", "clientSecret", "responseType.idToken", "responseType.code"]
    static var stored: WritableKeyPath<ProviderConfigs, [String: OIDCProviderConfig]> { \.oidc }

    var clientId = ""
    var issuer = ""
    var displayName: String?
    var enabled = false
    /// Answered to admins, as Identity Toolkit answers it.
    var clientSecret: String?
    /// The implicit flow: the provider's authorization endpoint answers an ID token.
    var idTokenResponse = true
    /// The code flow: an authorization code, which `clientSecret` redeems.
    var codeResponse = false

    mutating func set(_ path: String, from body: AuthRequestBody) throws(AuthError) {
        let (source, key) = try body.member(path)
        switch path {
        case "clientId": clientId = try source.string(key) ?? ""
        case "issuer": issuer = try source.string(key) ?? ""
        case "displayName": displayName = try source.string(key)
        case "enabled": enabled = try source.bool(key) ?? false
        case "clientSecret": clientSecret = try source.string(key)
        case "responseType.idToken":
            // Unsaid, the implicit flow, unless the code flow is asked for (one flow at a time).
            let code = try source.bool("code")
            idTokenResponse = try source.bool(key) ?? (code != true)
        case "responseType.code": codeResponse = try source.bool(key) ?? false
        default: break
        }
    }

    func check() throws(AuthError) {
        guard !clientId.isEmpty else { throw .code("INVALID_OAUTH_CLIENT_ID", "clientId must be a non-empty string.") }
        try Self.requireLength(clientId, of: "clientId", atMost: 1024)
        try Self.requireURL(issuer, of: "issuer")
        try Self.requireLength(displayName, of: "displayName", atMost: 256)
        try Self.requireLength(clientSecret, of: "clientSecret", atMost: 1024)
        guard idTokenResponse || codeResponse else { throw .code("INVALID_CONFIG", "At least one response type must be true.") }
        guard !(idTokenResponse && codeResponse) else {
            throw .code("INVALID_CONFIG", "responseType.idToken and responseType.code cannot both be true.")
        }
        if codeResponse, (clientSecret ?? "").isEmpty {
            throw .code("INVALID_CONFIG", "clientSecret is required for the code response type.")
        }
    }

    var members: [(String, JSONValue?)] {
        [
            ("clientId", .string(clientId)),
            ("issuer", .string(issuer)),
            ("displayName", displayName.map(JSONValue.string)),
            ("enabled", enabled ? .bool(true) : nil),
            ("clientSecret", clientSecret.map(JSONValue.string)),
            (
                "responseType",
                .members([("idToken", idTokenResponse ? .bool(true) : nil), ("code", codeResponse ? .bool(true) : nil)])
            ),
        ]
    }
}
