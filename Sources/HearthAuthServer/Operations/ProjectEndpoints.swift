import HearthCore

extension AuthService {
    /// `GET /v1/projects` (getProjectConfig): the project number and authorized domains.
    func projectConfig() -> JSONValue {
        .object([
            JSONMember(key: "projectId", value: .string(settings.projectNumber)),
            JSONMember(key: "authorizedDomains", value: .array(settings.allAuthorizedDomains.map(JSONValue.string))),
        ])
    }

    /// `GET /v1/recaptchaParams`: placeholder values (clients pointed at Hearth skip app verification).
    func recaptchaParams() -> JSONValue {
        .object([
            JSONMember(key: "kind", value: .string("identitytoolkit#GetRecaptchaParamResponse")),
            JSONMember(key: "recaptchaStoken", value: .string("This-is-not-a-real-reCAPTCHA-stoken")),
            JSONMember(key: "recaptchaSiteKey", value: .string("This-is-not-a-real-reCAPTCHA-site-key")),
        ])
    }

    /// `GET /v2/passwordPolicy`: the default policy, six characters minimum, not enforced beyond it.
    func passwordPolicy() -> JSONValue {
        .object([
            JSONMember(
                key: "customStrengthOptions", value: .object([JSONMember(key: "minPasswordLength", value: .number(.int(6)))])),
            JSONMember(key: "allowedNonAlphanumericCharacters", value: .array([])),
            JSONMember(key: "enforcementState", value: .string("OFF")),
            JSONMember(key: "forceUpgradeOnSignin", value: .bool(false)),
            JSONMember(key: "schemaVersion", value: .number(.int(1))),
        ])
    }

    /// The project's configuration document: the emulator's fields (auth spec §8) and, unless
    /// it is the emulator's own endpoint that asks (whose answer is exactly the emulator's), the
    /// sign-in methods, as Identity Platform's `Config` names them.
    static func render(_ config: ProjectAuthConfig, withSignInMethods: Bool) -> JSONValue {
        let methods = config.signInMethods
        var signIn = [JSONMember(key: "allowDuplicateEmails", value: .bool(config.allowDuplicateEmails))]
        if withSignInMethods {
            signIn += [
                JSONMember(
                    key: "email",
                    value: .object([
                        JSONMember(key: "enabled", value: .bool(methods.email)),
                        JSONMember(key: "passwordRequired", value: .bool(methods.passwordRequired)),
                    ])),
                JSONMember(key: "phoneNumber", value: .object([JSONMember(key: "enabled", value: .bool(methods.phoneNumber))])),
                JSONMember(key: "anonymous", value: .object([JSONMember(key: "enabled", value: .bool(methods.anonymous))])),
            ]
        }
        return .object([
            JSONMember(key: "signIn", value: .object(signIn)),
            JSONMember(
                key: "emailPrivacyConfig",
                value: .object([
                    JSONMember(key: "enableImprovedEmailPrivacy", value: .bool(config.enableImprovedEmailPrivacy))
                ])),
        ])
    }

    /// `GET|PATCH /emulator/v1/projects/{p}/config` and `/v2/projects/{p}/config`: only the
    /// fields present change; a body with none of them resets them all, as the emulator's empty
    /// mask does.
    func config(_ body: AuthRequestBody, patch: Bool, withSignInMethods: Bool) async throws(AuthError) -> JSONValue {
        guard patch else { return Self.render(try await directory.read { $0.config }, withSignInMethods: withSignInMethods) }
        let signIn = try body.object("signIn")
        let duplicates = try signIn?.bool("allowDuplicateEmails")
        let privacy = try body.object("emailPrivacyConfig")?.bool("enableImprovedEmailPrivacy")
        let email = try signIn?.object("email")
        let emailEnabled = try email?.bool("enabled")
        let passwordRequired = try email?.bool("passwordRequired")
        let phoneEnabled = try signIn?.object("phoneNumber")?.bool("enabled")
        let anonymousEnabled = try signIn?.object("anonymous")?.bool("enabled")
        let changes: [Bool?] = [duplicates, privacy, emailEnabled, passwordRequired, phoneEnabled, anonymousEnabled]
        let config = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> ProjectAuthConfig in
            var config = changes.allSatisfy { $0 == nil } ? ProjectAuthConfig() : state.config
            if let duplicates { config.allowDuplicateEmails = duplicates }
            if let privacy { config.enableImprovedEmailPrivacy = privacy }
            if let emailEnabled { config.signInMethods.email = emailEnabled }
            if let passwordRequired { config.signInMethods.passwordRequired = passwordRequired }
            if let phoneEnabled { config.signInMethods.phoneNumber = phoneEnabled }
            if let anonymousEnabled { config.signInMethods.anonymous = anonymousEnabled }
            state.setConfig(config)
            return config
        }
        return Self.render(config, withSignInMethods: withSignInMethods)
    }

    /// `DELETE /emulator/v1/projects/{p}/accounts`: every account goes; action codes stay.
    func clearAccounts() async throws(AuthError) -> JSONValue {
        try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) in state.removeAllUsers() }
        return .object([])
    }

    /// `GET /emulator/v1/projects/{p}/oobCodes`: every unused action code.
    func listActionCodes() async throws(AuthError) -> JSONValue {
        let codes = try await directory.read { state in
            state.codes.values.sorted { $0.link < $1.link }.map { code in
                JSONValue.members([
                    ("email", .string(code.email)),
                    ("requestType", .string(code.kind.rawValue)),
                    ("oobCode", .string(code.code)),
                    ("oobLink", .string(code.link)),
                    ("newEmail", code.newEmail.map(JSONValue.string)),
                ])
            }
        }
        return .object([JSONMember(key: "oobCodes", value: .array(codes))])
    }
}
