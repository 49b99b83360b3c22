import HearthCore

extension AuthService {
    /// `accounts:signUp` (auth spec §2.1): an anonymous account, an email/password account, or
    /// (with `idToken`) an email and password linked to the signed-in account. A privileged
    /// caller creates an account as the admin create does.
    func signUp(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        if call.privileged { return try await createUser(body, call) }
        if body.has("localId") { throw .code("UNEXPECTED_PARAMETER", "User ID") }
        let email = try body.string("email")
        let password = try body.string("password")
        let idToken = try body.string("idToken")
        let emailMode = [email, password, idToken].contains { !($0 ?? "").isEmpty }
        guard emailMode else {
            if email != nil { throw .code("INVALID_EMAIL") }
            try await require(\.anonymous, call, or: "ADMIN_ONLY_OPERATION")
            try await abuse?.admitSignUp(from: call.clientAddress, now: call.now)
            return try await createAnonymous(call)
        }
        guard let email, !email.isEmpty else { throw .code("MISSING_EMAIL") }
        guard let password, !password.isEmpty else { throw .code("MISSING_PASSWORD") }
        try await require(\.email, call, or: "OPERATION_NOT_ALLOWED")
        let address = try AuthFormats.email(email)
        try AuthFormats.requireStrong(password)
        let displayName = try AccountLimits.displayName(try body.string("displayName"))
        let linkedTo: UserRecord? = if let idToken, !idToken.isEmpty { try await user(forIDToken: idToken, call).0 } else { nil }
        if linkedTo == nil { try await abuse?.admitSignUp(from: call.clientAddress, now: call.now) }
        let config = try await directory.read { $0.config }
        if !config.allowDuplicateEmails,
            try await directory.read({ $0.users.users(withEmail: address).contains { $0.localId != linkedTo?.localId } })
        {
            throw .code("EMAIL_EXISTS")
        }
        let stored = try await passwords.hash(password)
        let user = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> UserRecord in
            if !state.config.allowDuplicateEmails,
                state.users.users(withEmail: address).contains(where: { $0.localId != linkedTo?.localId })
            {
                throw .code("EMAIL_EXISTS")
            }
            var user: UserRecord
            if let linkedTo {
                guard let current = state.users[linkedTo.localId] else { throw .code("USER_NOT_FOUND") }
                user = current
            } else {
                user = UserRecord(localId: AuthFormats.newUID(), createdAt: call.nowMilliseconds)
                user.displayName = displayName
            }
            if user.email != address { user.emailVerified = false }
            user.email = address
            user.password = stored
            user.passwordUpdatedAt = call.nowMilliseconds
            user.validSince = call.now
            user.lastLoginAt = call.nowMilliseconds
            user.lastRefreshAt = call.nowMilliseconds
            state.users.put(user)
            return user
        }
        var members: [JSONMember] = [
            JSONMember(key: "kind", value: .string("identitytoolkit#SignupNewUserResponse")),
            JSONMember(key: "localId", value: .string(user.localId)),
            JSONMember(key: "email", value: .string(address)),
        ]
        if let name = user.displayName { members.append(JSONMember(key: "displayName", value: .string(name))) }
        members += try await tokenTriple(for: user, provider: "password", call)
        return .object(members)
    }

    private func createAnonymous(_ call: AuthCall) async throws(AuthError) -> JSONValue {
        let user = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> UserRecord in
            var user = UserRecord(localId: AuthFormats.newUID(), createdAt: call.nowMilliseconds)
            user.anonymous = true
            user.lastLoginAt = call.nowMilliseconds
            user.lastRefreshAt = call.nowMilliseconds
            state.users.put(user)
            return user
        }
        return .object(
            [
                JSONMember(key: "kind", value: .string("identitytoolkit#SignupNewUserResponse")),
                JSONMember(key: "localId", value: .string(user.localId)),
            ] + (try await tokenTriple(for: user, provider: "anonymous", call)))
    }

    /// The admin create (`POST /v1/projects/{p}/accounts`, and privileged `signUp`): the profile
    /// as given, no tokens, no sign-in time.
    func createUser(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let localId = try body.string("localId")
        if localId != nil, body.has("idToken") { throw .code("UNEXPECTED_PARAMETER", "User ID") }
        if let localId, !(1...AccountLimits.localIdBytes).contains(localId.utf8.count) { throw .code("INVALID_LOCAL_ID") }
        let address = try body.string("email").map(AuthFormats.email)
        let phone = try body.string("phoneNumber")
        if let phone, !AuthFormats.isValidPhone(phone) { throw .code("INVALID_PHONE_NUMBER", "Invalid format.") }
        var stored: StoredPassword?
        if let password = try body.string("password") {
            try AuthFormats.requireStrong(password)
            stored = try await passwords.hash(password)
        }
        let displayName = try AccountLimits.displayName(try body.string("displayName"))
        let photoUrl = try AccountLimits.photoUrl(try body.string("photoUrl"))
        let emailVerified = try body.bool("emailVerified")
        let disabled = try body.bool("disabled") ?? false
        let user = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> UserRecord in
            if let localId, state.users[localId] != nil { throw .code("DUPLICATE_LOCAL_ID") }
            if let address, !state.config.allowDuplicateEmails, !state.users.users(withEmail: address).isEmpty {
                throw .code("EMAIL_EXISTS")
            }
            if let phone, state.users.user(withPhone: phone) != nil { throw .code("PHONE_NUMBER_EXISTS") }
            var user = UserRecord(localId: localId ?? AuthFormats.newUID(), createdAt: call.nowMilliseconds)
            user.email = address
            user.emailVerified = address != nil ? (emailVerified ?? false) : emailVerified
            user.displayName = displayName
            user.photoUrl = photoUrl
            user.phoneNumber = phone
            user.disabled = disabled
            if let stored {
                user.password = stored
                user.passwordUpdatedAt = call.nowMilliseconds
                user.validSince = call.now
            }
            state.users.put(user)
            return user
        }
        return .members([
            ("kind", .string("identitytoolkit#SignupNewUserResponse")),
            ("localId", .string(user.localId)),
            ("email", user.email.map(JSONValue.string)),
            ("displayName", user.displayName.map(JSONValue.string)),
        ])
    }
}
