/// What an Authentication URL asks for (auth spec §1.1, §2, §8): the operation, and the project
/// and tenant an admin path names.
package struct AuthRoute: Equatable, Sendable {
    var operation: AuthOperation
    /// The project in an admin path (`/v1/projects/{p}/…`).
    var project: String?
    var tenant: String?

    /// The path prefixes Authentication answers on the shared port.
    static let prefixes = [
        "/identitytoolkit.googleapis.com/", "/securetoken.googleapis.com/", "/www.googleapis.com/", "/emulator/",
        "/oauth2.googleapis.com/", "/__/auth/",
    ]

    /// Whether `path` belongs to Authentication. Database URLs end in `.json` and Authentication's
    /// never do, so data at `/emulator/…` stays reachable.
    package static func claims(_ path: String) -> Bool {
        path == "/" || (!path.hasSuffix(".json") && prefixes.contains { path.hasPrefix($0) })
    }

    /// The legacy relying-party names and the v1 operations they stand for (§1.1 route map).
    private static let legacyNames: [String: AuthOperation] = [
        "signupNewUser": .signUp, "verifyPassword": .signInWithPassword, "verifyCustomToken": .signInWithCustomToken,
        "verifyAssertion": .signInWithIdp, "emailLinkSignin": .signInWithEmailLink, "getAccountInfo": .lookup,
        "setAccountInfo": .update, "deleteAccount": .delete, "getOobConfirmationCode": .sendOobCode,
        "resetPassword": .resetPassword, "createAuthUri": .createAuthUri, "getProjectConfig": .projectConfig,
        "getRecaptchaParam": .recaptchaParams, "publicKeys": .sessionCookieCertificates, "uploadAccount": .batchCreate,
        "downloadAccount": .batchGet, "sendVerificationCode": .sendVerificationCode,
        "verifyPhoneNumber": .signInWithPhoneNumber, "signOutUser": .unimplemented("signOutUser"),
        "setProjectConfig": .unimplemented("setProjectConfig"),
    ]

    /// The `accounts:<op>` names of v1.
    private static let accountOperations: [String: AuthOperation] = [
        "signUp": .signUp, "signInWithPassword": .signInWithPassword, "signInWithCustomToken": .signInWithCustomToken,
        "signInWithIdp": .signInWithIdp, "signInWithEmailLink": .signInWithEmailLink, "lookup": .lookup, "update": .update,
        "delete": .delete, "sendOobCode": .sendOobCode, "resetPassword": .resetPassword, "createAuthUri": .createAuthUri,
        "batchCreate": .batchCreate, "batchGet": .batchGet, "batchDelete": .batchDelete, "query": .query,
        "sendVerificationCode": .sendVerificationCode, "signInWithPhoneNumber": .signInWithPhoneNumber,
    ]

    /// The route of `path`, or `nil` when no Authentication operation lives there.
    static func parse(_ path: String) -> AuthRoute? {
        if path == "/" { return AuthRoute(operation: .ready) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard let host = segments.first else { return nil }
        let rest = Array(segments.dropFirst())
        switch host {
        case "identitytoolkit.googleapis.com": return identityToolkit(rest)
        case "securetoken.googleapis.com": return rest == ["v1", "token"] ? AuthRoute(operation: .refresh) : nil
        case "www.googleapis.com": return googleAPIs(rest)
        case "emulator": return emulator(rest)
        case "oauth2.googleapis.com": return rest == ["token"] ? AuthRoute(operation: .oauthToken) : nil
        case "__": return rest == ["auth", "action"] ? AuthRoute(operation: .actionPage) : nil
        default: return nil
        }
    }

    private static func identityToolkit(_ segments: [String]) -> AuthRoute? {
        guard let version = segments.first, version == "v1" || version == "v2" else { return nil }
        let rest = Array(segments.dropFirst())
        switch (version, rest.count) {
        case ("v1", 1):
            if rest[0] == "projects" { return AuthRoute(operation: .projectConfig) }
            if rest[0] == "recaptchaParams" { return AuthRoute(operation: .recaptchaParams) }
            if rest[0] == "sessionCookiePublicKeys" { return AuthRoute(operation: .sessionCookieKeys) }
            if let operation = account(rest[0]) { return AuthRoute(operation: operation) }
            return nil
        case ("v2", 1):
            if rest[0] == "passwordPolicy" { return AuthRoute(operation: .passwordPolicy) }
            if rest[0] == "recaptchaConfig" { return AuthRoute(operation: .unimplemented("recaptchaConfig")) }
            if rest[0] == "accounts:revokeToken" { return AuthRoute(operation: .unimplemented("accounts:revokeToken")) }
            return nil
        default:
            break
        }
        guard rest.first == "projects", rest.count >= 2 else { return nil }
        let projectSegment = rest[1]
        if rest.count == 2 {
            // `projects/{p}:createSessionCookie`, `projects/{p}:queryAccounts`.
            let parts = projectSegment.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            switch parts[1] {
            case "createSessionCookie": return AuthRoute(operation: .createSessionCookie, project: parts[0])
            case "queryAccounts": return AuthRoute(operation: .query, project: parts[0])
            default: return nil
            }
        }
        var tail = Array(rest.dropFirst(2))
        var tenant: String?
        if tail.first == "tenants", tail.count >= 2 {
            tenant = tail[1]
            tail.removeFirst(2)
        }
        if version == "v2", tail == ["config"] { return AuthRoute(operation: .config, project: projectSegment, tenant: tenant) }
        if version == "v2", (1...2).contains(tail.count), let kind = ProviderKind(collection: tail[0]) {
            let operation = AuthOperation.providerConfigs(kind, id: tail.count == 2 ? tail[1] : nil)
            return AuthRoute(operation: operation, project: projectSegment, tenant: tenant)
        }
        guard tail.count == 1 else { return nil }
        if tail[0] == "accounts" { return AuthRoute(operation: .createUser, project: projectSegment, tenant: tenant) }
        if let operation = account(tail[0]) { return AuthRoute(operation: operation, project: projectSegment, tenant: tenant) }
        let parts = tail[0].split(separator: ":", maxSplits: 1).map(String.init)
        if parts.count == 2, parts[0].isEmpty || parts[0] == "accounts", parts[1] == "createSessionCookie" {
            return AuthRoute(operation: .createSessionCookie, project: projectSegment, tenant: tenant)
        }
        return nil
    }

    private static func account(_ segment: String) -> AuthOperation? {
        guard segment.hasPrefix("accounts:") else { return nil }
        return accountOperations[String(segment.dropFirst("accounts:".count))]
    }

    private static func googleAPIs(_ segments: [String]) -> AuthRoute? {
        if segments.count == 4, segments[0...2] == ["identitytoolkit", "v3", "relyingparty"] {
            return legacyNames[segments[3]].map { AuthRoute(operation: $0) } ?? nil
        }
        let account = "securetoken@system.gserviceaccount.com"
        if segments == ["service_accounts", "v1", "jwk", account] { return AuthRoute(operation: .idTokenKeys) }
        if segments == ["robot", "v1", "metadata", "x509", account] { return AuthRoute(operation: .idTokenCertificates) }
        return nil
    }

    private static func emulator(_ segments: [String]) -> AuthRoute? {
        if segments == ["action"] { return AuthRoute(operation: .emulatorAction) }
        guard segments.count >= 4, segments[0] == "v1", segments[1] == "projects" else { return nil }
        let project = segments[2]
        var tail = Array(segments.dropFirst(3))
        var tenant: String?
        if tail.first == "tenants", tail.count >= 2 {
            tenant = tail[1]
            tail.removeFirst(2)
        }
        switch tail {
        case ["accounts"]: return AuthRoute(operation: .emulatorClearAccounts, project: project, tenant: tenant)
        case ["oobCodes"]: return AuthRoute(operation: .emulatorOobCodes, project: project, tenant: tenant)
        case ["verificationCodes"]: return AuthRoute(operation: .emulatorVerificationCodes, project: project, tenant: tenant)
        case ["config"]: return AuthRoute(operation: .emulatorConfig, project: project, tenant: tenant)
        default: return nil
        }
    }
}

/// The operations of Authentication.
enum AuthOperation: Equatable, Sendable {
    case ready
    case signUp, createUser, signInWithPassword, signInWithCustomToken, signInWithIdp, signInWithEmailLink
    case lookup, update, delete, sendOobCode, resetPassword, createAuthUri, refresh
    case sendVerificationCode, signInWithPhoneNumber
    case batchCreate, batchGet, batchDelete, query, createSessionCookie
    case projectConfig, recaptchaParams, passwordPolicy, config
    /// `v2/projects/{p}/oauthIdpConfigs[/{id}]`, `…/inboundSamlConfigs[/{id}]`: the collection
    /// (list, create) or one configuration (get, patch, delete).
    case providerConfigs(ProviderKind, id: String?)
    case idTokenKeys, idTokenCertificates, sessionCookieKeys, sessionCookieCertificates
    case emulatorClearAccounts, emulatorOobCodes, emulatorVerificationCodes, emulatorConfig, emulatorAction
    /// The OAuth2 token endpoint of service accounts.
    case oauthToken
    /// The web page that action links open in production (`/__/auth/action`).
    case actionPage
    /// A known operation Hearth does not serve (501).
    case unimplemented(String)

    /// Operations only a privileged (admin) caller may run.
    var requiresPrivilege: Bool {
        switch self {
        case .batchCreate, .batchGet, .batchDelete, .query, .createSessionCookie, .createUser, .providerConfigs: true
        default: false
        }
    }

    /// The emulator's own endpoints, which production does not serve (they need no credential).
    var isEmulatorOnly: Bool {
        switch self {
        case .emulatorClearAccounts, .emulatorOobCodes, .emulatorVerificationCodes, .emulatorConfig, .emulatorAction: true
        default: false
        }
    }

    /// Operations that need no API key or credential (key documents, emulator endpoints).
    var isOpen: Bool {
        switch self {
        case .ready, .idTokenKeys, .idTokenCertificates, .sessionCookieKeys, .sessionCookieCertificates,
            .emulatorClearAccounts, .emulatorOobCodes, .emulatorVerificationCodes, .emulatorConfig, .emulatorAction,
            .actionPage:
            true
        default: false
        }
    }
}
