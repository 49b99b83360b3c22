/// How Authentication behaves: the project it serves and the mode's rules.
public struct AuthSettings: Sendable {
    /// The project id: the audience of ID tokens.
    public var projectID: String
    /// Production: signed tokens only, API keys checked, admin access only with issued credentials.
    public var production: Bool
    /// The API keys clients may use in production; any non-empty key when empty (development
    /// accepts any key, as the emulator does).
    public var apiKeys: Set<String>
    /// How recently (seconds) a user must have signed in to change email or password or delete the
    /// account; `nil` does not check (development default, as the emulator).
    public var recentLoginWindow: Int64?
    /// How production checks federated credentials.
    public var identityProviders: IdentityProviderSettings
    /// New accounts one IP address may create per hour in production (Firebase: 100).
    public var signUpsPerHour = 100
    /// Where action emails are delivered (`smtp://user:pass@host:port`, `smtps://…`); `nil`
    /// only logs them (and the emulator endpoint lists them).
    public var smtpURL: String?
    /// A folder of email templates (`<mode>.txt`, `<mode>.html`) overriding the built-in texts.
    public var emailTemplatesDirectory: String?
    /// Where users reach Hearth (`https://auth.example.com`): the origin of production's action
    /// links. Development builds links from the request's `Host`, as the emulator does; production
    /// never trusts that header (a forged one would send a reset link elsewhere).
    public var publicURL = "http://127.0.0.1:9000"
    /// Hosts that `continueUrl` may point at in production (`UNAUTHORIZED_DOMAIN` otherwise),
    /// besides `localhost` and the public URL's host; reported by `getProjectConfig`.
    public var authorizedDomains: Set<String> = []

    /// The public URL without a trailing `/`: what production's action links start with.
    var publicOrigin: String {
        var origin = publicURL
        while origin.hasSuffix("/") { origin.removeLast() }
        return origin
    }

    /// Every authorized domain: `localhost`, the public URL's host and the configured ones.
    var allAuthorizedDomains: [String] {
        var domains: Set<String> = ["localhost"]
        if let host = URLParts.host(of: publicURL) { domains.insert(host) }
        return domains.union(authorizedDomains).sorted()
    }

    public init(
        projectID: String, production: Bool, apiKeys: Set<String> = [], recentLoginWindow: Int64? = nil,
        identityProviders: IdentityProviderSettings = IdentityProviderSettings()
    ) {
        self.projectID = projectID
        self.production = production
        self.apiKeys = apiKeys
        self.identityProviders = identityProviders
        self.recentLoginWindow = recentLoginWindow ?? (production ? 300 : nil)
    }

    /// The project number reported in refresh responses and project configuration.
    var projectNumber: String { "12345" }

    func accepts(apiKey: String) -> Bool {
        !production || apiKeys.isEmpty || apiKeys.contains(apiKey)
    }
}
