import HearthCore
import HearthEdge

extension AuthService {
    static let deletableAttributes = [
        "USER_ATTRIBUTE_NAME_UNSPECIFIED", "EMAIL", "DISPLAY_NAME", "PROVIDER", "PHOTO_URL", "PASSWORD", "RAW_USER_INFO",
    ]

    /// `accounts:update` (auth spec §2.7): applies an action code (`oobCode`), or changes the
    /// signed-in user (`idToken`) or, for a privileged caller, any account (`localId`).
    ///
    /// A change that moves `validSince` (password, email) revokes earlier tokens, so an end user
    /// receives new ones with the answer.
    func update(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        if let code = try body.string("oobCode"), !body.has("idToken"), !body.has("localId") {
            return try await applyActionCode(code, call)
        }
        let admin = call.privileged && !body.has("idToken")
        var claims: JWTClaims?
        let localId: String
        if admin {
            localId = try body.required("localId", else: .code("MISSING_LOCAL_ID"))
        } else {
            guard body.has("idToken") else { throw .code("INVALID_REQ_TYPE", "Unsupported request parameters.") }
            if body.has("customAttributes") { throw .code("INSUFFICIENT_PERMISSION") }
            if body.has("disableUser") { throw .code("OPERATION_NOT_ALLOWED") }
            let (user, tokenClaims) = try await user(forIDToken: try body.string("idToken"), call)
            localId = user.localId
            claims = tokenClaims
        }
        let change = try await UserChange(body, admin: admin)
        if change.changesCredentials, let claims { try requireRecentLogin(claims, call) }
        let config = try await directory.read { $0.config }
        if !admin, change.email != nil, settings.production, config.enableImprovedEmailPrivacy {
            throw .code("OPERATION_NOT_ALLOWED", "Please verify the new email before changing email.")
        }
        let password = try await change.password.asyncMap { password async throws(AuthError) in try await passwords.hash(password) }
        let (user, revoked, recovery) = try await directory.change {
            (state: inout AuthDirectory.State) throws(AuthError) -> (UserRecord, Bool, ActionCode?) in
            guard var user = state.users[localId] else { throw .code("USER_NOT_FOUND") }
            let oldEmail = user.email
            try change.apply(to: &user, password: password, in: state, now: call)
            state.users.put(user)
            let revokes = password != nil || user.email != oldEmail || change.validSince != nil
            var recovery: ActionCode?
            if let oldEmail, user.email != oldEmail, user.email != nil {
                let code = ActionCodes.make(
                    .recoverEmail, email: oldEmail, localId: localId, newEmail: nil, continueUrl: nil, for: call,
                    production: settings.production)
                state.addCode(code)
                recovery = code
            }
            return (user, revokes, recovery)
        }
        if let recovery {
            // The old address learns of the change; the change stands whether or not it does.
            if !settings.production { logger.notice("\(logSafe: ActionCodes.logLine(recovery))") }
            try? await mail(recovery)
        }
        var members: [JSONMember] = [
            JSONMember(key: "kind", value: .string("identitytoolkit#SetAccountInfoResponse")),
            JSONMember(key: "localId", value: .string(user.localId)),
        ]
        if case .object(let profile) = JSONValue.members([
            ("email", user.email.map(JSONValue.string)),
            ("emailVerified", .bool(user.emailVerified ?? false)),
            ("displayName", user.displayName.map(JSONValue.string)),
            ("photoUrl", user.photoUrl.map(JSONValue.string)),
        ]) {
            members += profile
        }
        let providers = UserInfoJSON.providerUserInfo(user)
        if !providers.isEmpty { members.append(JSONMember(key: "providerUserInfo", value: .array(providers))) }
        if user.password != nil { members.append(JSONMember(key: "passwordHash", value: .string(UserInfoJSON.redactedHash))) }
        if revoked, let claims {
            let provider = password != nil ? "password" : Self.signInProvider(of: claims)
            members += try await tokenTriple(for: user, provider: provider, authTime: claims.seconds("auth_time"), call)
        }
        return .object(members)
    }
}

/// The changes one `accounts:update` asks for, read and validated before anything is applied.
private struct UserChange: Sendable {
    var email: String?
    var password: String?
    var displayName: String?
    var photoUrl: String?
    var deleteAttributes: [String] = []
    var deleteProviders: [String] = []
    var linkProvider: LinkedProvider?
    // Privileged only.
    var emailVerified: Bool?
    var disableUser: Bool?
    var customAttributes: String?
    var validSince: Int64?
    var createdAt: Int64?
    var lastLoginAt: Int64?
    var phoneNumber: String?

    var changesCredentials: Bool { email != nil || password != nil }

    init(_ body: AuthRequestBody, admin: Bool) async throws(AuthError) {
        email = try body.string("email").map(AuthFormats.email)
        if let password = try body.string("password") {
            try AuthFormats.requireStrong(password)
            self.password = password
        }
        displayName = try AccountLimits.displayName(try body.string("displayName"))
        photoUrl = try AccountLimits.photoUrl(try body.string("photoUrl"))
        deleteAttributes = try body.enumerations("deleteAttribute", names: AuthService.deletableAttributes)
        if deleteAttributes.contains(where: { $0 == "PROVIDER" || $0 == "RAW_USER_INFO" }) {
            throw .notImplemented("deleteAttribute PROVIDER and RAW_USER_INFO are not implemented.")
        }
        deleteProviders = try body.strings("deleteProvider")
        guard admin else {
            if body.has("linkProviderUserInfo") { throw .code("INSUFFICIENT_PERMISSION") }
            return
        }
        if let link = try body.object("linkProviderUserInfo") {
            guard let providerId = try link.string("providerId"), !providerId.isEmpty else { throw .code("MISSING_PROVIDER_ID") }
            guard let rawId = try link.string("rawId"), !rawId.isEmpty else { throw .code("MISSING_RAW_ID") }
            let provider = LinkedProvider(
                providerId: providerId, rawId: rawId, email: try link.string("email"),
                displayName: try link.string("displayName"), photoUrl: try link.string("photoUrl"),
                screenName: try link.string("screenName"))
            try AccountLimits.check(provider)
            linkProvider = provider
        }
        emailVerified = try body.bool("emailVerified")
        disableUser = try body.bool("disableUser")
        if let claims = try body.string("customAttributes") {
            try AuthFormats.validateCustomClaims(claims)
            customAttributes = claims
        }
        validSince = try body.int64("validSince")
        createdAt = try body.int64("createdAt")
        lastLoginAt = try body.int64("lastLoginAt")
        if let phone = try body.string("phoneNumber") {
            guard AuthFormats.isValidPhone(phone) else { throw .code("INVALID_PHONE_NUMBER", "Invalid format.") }
            phoneNumber = phone
        }
    }

    /// Applies the change to `user`, checking uniqueness against the other accounts of `state`.
    func apply(
        to user: inout UserRecord, password stored: StoredPassword?, in state: AuthDirectory.State, now call: AuthCall
    ) throws(AuthError) {
        if let email, email != user.email {
            if !state.config.allowDuplicateEmails, state.users.users(withEmail: email).contains(where: { $0.localId != user.localId }) {
                throw .code("EMAIL_EXISTS")
            }
            if user.email != nil, user.initialEmail == nil { user.initialEmail = user.email }
            user.email = email
            user.emailVerified = false
            user.validSince = call.now
        }
        if let phoneNumber, phoneNumber != user.phoneNumber {
            if state.users.user(withPhone: phoneNumber) != nil { throw .code("PHONE_NUMBER_EXISTS") }
            user.phoneNumber = phoneNumber
        }
        if let stored {
            user.password = stored
            user.passwordUpdatedAt = call.nowMilliseconds
            user.validSince = call.now
        }
        if let displayName { user.displayName = displayName }
        if let photoUrl { user.photoUrl = photoUrl }
        for attribute in deleteAttributes {
            switch attribute {
            case "DISPLAY_NAME": user.displayName = nil
            case "PHOTO_URL": user.photoUrl = nil
            case "PASSWORD": user.password = nil
            case "EMAIL": user.removeEmail()
            default: break
            }
        }
        for provider in deleteProviders {
            switch provider {
            case "password": user.removeEmail()
            case "phone": user.phoneNumber = nil
            default: user.providers.removeAll { $0.providerId == provider }
            }
        }
        if let linkProvider {
            if let owner = state.users.user(federatedBy: linkProvider.providerId, rawId: linkProvider.rawId),
                owner.localId != user.localId
            {
                throw .code("FEDERATED_USER_ID_ALREADY_LINKED")
            }
            user.providers.removeAll { $0.providerId == linkProvider.providerId }
            user.providers.append(linkProvider)
        }
        if let emailVerified { user.emailVerified = emailVerified }
        if let disableUser { user.disabled = disableUser }
        if let customAttributes { user.customAttributes = customAttributes == "{}" ? nil : customAttributes }
        if let validSince { user.validSince = validSince }
        if let createdAt { user.createdAt = createdAt }
        if let lastLoginAt { user.lastLoginAt = lastLoginAt }
    }
}

extension Optional {
    /// The result of `transform` on the wrapped value, awaited.
    func asyncMap<Result, Failure: Error>(
        _ transform: (Wrapped) async throws(Failure) -> Result
    ) async throws(Failure) -> Result? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
