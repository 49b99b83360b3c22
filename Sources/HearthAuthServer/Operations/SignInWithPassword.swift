import HearthCore

extension AuthService {
    /// `accounts:signInWithPassword` (auth spec §2.2). With email-enumeration protection, every
    /// failure but a disabled account is `INVALID_LOGIN_CREDENTIALS`, and an email no account has
    /// costs a hash and counts towards the lock as a known one does: neither the answers nor the
    /// time taken tell whether an account has it. A hash imported with another algorithm is
    /// replaced by the project's own once the password matches.
    func signInWithPassword(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        guard let email = try body.string("email"), !email.isEmpty else { throw .code("MISSING_EMAIL") }
        let address = try AuthFormats.email(email)
        guard let password = try body.string("password"), !password.isEmpty else { throw .code("MISSING_PASSWORD") }
        try await require(\.email, call, or: "PASSWORD_LOGIN_DISABLED")
        let (found, config) = try await directory.read { ($0.users.users(withEmail: address).first, $0.config) }
        let protected = config.enableImprovedEmailPrivacy
        if found == nil && !protected { throw .code("EMAIL_NOT_FOUND") }
        if found?.disabled == true { throw .code("USER_DISABLED") }
        try await abuse?.beginPasswordAttempt(address, from: call.clientAddress, now: call.now)
        let matches = await passwords.check(password, against: found?.password)
        await abuse?.finishPasswordAttempt(address, from: call.clientAddress, succeeded: matches, now: call.now)
        guard matches, let found, let stored = found.password else {
            throw .code(protected ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD")
        }
        let upgraded = stored.importedWith == nil ? nil : try await passwords.hash(password)
        let user = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> UserRecord in
            guard var user = state.users[found.localId] else { throw .code(protected ? "INVALID_LOGIN_CREDENTIALS" : "EMAIL_NOT_FOUND") }
            if let upgraded, user.password == stored { user.password = upgraded }
            user.lastLoginAt = call.nowMilliseconds
            user.lastRefreshAt = call.nowMilliseconds
            state.users.put(user)
            return user
        }
        return .object(
            [
                JSONMember(key: "kind", value: .string("identitytoolkit#VerifyPasswordResponse")),
                JSONMember(key: "registered", value: .bool(true)),
                JSONMember(key: "localId", value: .string(user.localId)),
                JSONMember(key: "email", value: .string(address)),
                JSONMember(key: "displayName", value: .string(user.displayName ?? "")),
            ] + (try await tokenTriple(for: user, provider: "password", call)))
    }
}
