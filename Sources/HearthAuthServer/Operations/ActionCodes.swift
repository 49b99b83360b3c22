import HearthCore
import HearthEdge
import Hummingbird

/// Email action codes (auth spec §2.9, §2.10, §10): making them, and the operations that send,
/// check and apply them.
enum ActionCodes {
    /// A new code of `kind` with its action link: `<origin>/emulator/action?mode=…` in development
    /// (the emulator's handler), `<origin>/__/auth/action?mode=…` in production; `lang` is the
    /// caller's language.
    static func make(
        _ kind: ActionCode.Kind, email: String, localId: String?, newEmail: String?, continueUrl: String?, for call: AuthCall,
        production: Bool
    ) -> ActionCode {
        let code = AuthFormats.newActionCode()
        var link = linkStart(kind, origin: call.origin, production: production)
        link +=
            "&lang=\(PercentEncoding.encode(call.language))&oobCode=\(code)&apiKey=\(PercentEncoding.encode(call.apiKey ?? "fake-api-key"))"
        if let continueUrl { link += "&continueUrl=\(PercentEncoding.encode(continueUrl))" }
        return ActionCode(
            code: code, kind: kind, email: email, newEmail: newEmail, localId: localId, link: link, continueUrl: continueUrl,
            expiresAt: production ? call.now + kind.lifetimeSeconds : nil)
    }

    /// The start of an action link of `kind`, up to its `mode`: the handler at `origin` that
    /// applies it, the emulator's in development.
    static func linkStart(_ kind: ActionCode.Kind, origin: String, production: Bool) -> String {
        "\(origin)\(production ? "/__/auth/action" : "/emulator/action")?mode=\(kind.mode)"
    }

    /// The sentence the development log shows for a code, as the emulator prints it.
    static func logLine(_ code: ActionCode) -> String {
        switch code.kind {
        case .verifyEmail: "To verify the email address \(code.email), follow this link: \(code.link)"
        case .passwordReset: "To reset the password for \(code.email), follow this link: \(code.link)&newPassword=NEW_PASSWORD_HERE"
        case .emailSignIn: "To sign in as \(code.email), follow this link: \(code.link)"
        case .verifyAndChangeEmail:
            "To verify and change the email address from \(code.email) to \(code.newEmail ?? ""), follow this link: \(code.link)"
        case .recoverEmail: "To reset your email address to \(code.email), follow this link: \(code.link)"
        }
    }
}

extension AuthService {
    static let requestTypes = [
        "OOB_REQ_TYPE_UNSPECIFIED", "PASSWORD_RESET", "OLD_EMAIL_AGREE", "NEW_EMAIL_ACCEPT", "VERIFY_EMAIL",
        "RECOVER_EMAIL", "EMAIL_SIGNIN", "VERIFY_AND_CHANGE_EMAIL", "REVERT_SECOND_FACTOR_ADDITION",
    ]

    /// `accounts:sendOobCode` (auth spec §2.9): makes a code and "sends" its link: the development
    /// log and the emulator's `oobCodes` listing; with `returnOobLink` (privileged) the link is
    /// answered instead.
    func sendOobCode(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        guard let typeName = try body.enumeration("requestType", names: Self.requestTypes), typeName != "OOB_REQ_TYPE_UNSPECIFIED"
        else { throw .code("MISSING_REQ_TYPE") }
        let returnLink = try body.bool("returnOobLink") ?? false
        if returnLink && !call.privileged { throw .code("INSUFFICIENT_PERMISSION") }
        let continueUrl = try body.string("continueUrl")
        if let continueUrl, !Self.isAbsoluteURL(continueUrl) {
            throw .code("INVALID_CONTINUE_URI", "((expected an absolute URI with valid scheme and host))")
        }
        // Production sends users only to the project's own domains after an action.
        if settings.production, let continueUrl, !settings.allAuthorizedDomains.contains(URLParts.host(of: continueUrl) ?? "") {
            throw .code("UNAUTHORIZED_DOMAIN")
        }
        var call = call
        call.origin = try linkOrigin(body, call)
        guard let kind = ActionCode.Kind(rawValue: typeName), kind != .recoverEmail else {
            throw .notImplemented("requestType \(typeName) is not implemented.")
        }
        var email: String
        var localId: String?
        var newEmail: String?
        let config = try await directory.read { $0.config }
        switch kind {
        case .passwordReset, .emailSignIn:
            email = try AuthFormats.email(try body.required("email", else: .code("MISSING_EMAIL")))
            if kind == .emailSignIn { try await require(\.emailLink, call, or: "OPERATION_NOT_ALLOWED") }
            let user = try await directory.read { $0.users.users(withEmail: email).first }
            if kind == .passwordReset {
                guard let user else {
                    if config.enableImprovedEmailPrivacy { return Self.oobResponse(email: email, code: nil) }
                    throw .code("EMAIL_NOT_FOUND")
                }
                localId = user.localId
            }
        case .verifyEmail, .verifyAndChangeEmail:
            let user: UserRecord
            if call.privileged && !body.has("idToken") {
                let address = try AuthFormats.email(try body.required("email", else: .code("MISSING_EMAIL")))
                guard let found = try await directory.read({ $0.users.users(withEmail: address).first }) else {
                    throw .code("USER_NOT_FOUND")
                }
                user = found
            } else if kind == .verifyEmail, (try body.string("idToken") ?? "").isEmpty {
                // The emulator reads a missing token as an empty one: not decodable.
                throw .code("INVALID_ID_TOKEN")
            } else {
                user = try await self.user(forIDToken: try body.string("idToken"), call).0
            }
            guard let address = user.email else { throw .code("MISSING_EMAIL") }
            email = address
            localId = user.localId
            if kind == .verifyAndChangeEmail {
                let target = try AuthFormats.email(try body.required("newEmail", else: .code("MISSING_NEW_EMAIL")))
                if try await directory.read({ !$0.users.users(withEmail: target).isEmpty }) {
                    // With enumeration protection, production answers as if it had sent the email.
                    if settings.production && config.enableImprovedEmailPrivacy { return Self.oobResponse(email: address, code: nil) }
                    throw .code("EMAIL_EXISTS")
                }
                newEmail = target
            }
        case .recoverEmail:
            throw .notImplemented("requestType RECOVER_EMAIL is not implemented.")
        }
        let code = ActionCodes.make(
            kind, email: email, localId: localId, newEmail: newEmail, continueUrl: continueUrl, for: call,
            production: settings.production)
        if !returnLink { try await abuse?.admitEmail(to: newEmail ?? email, now: call.now) }
        try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) in
            state.removeExpiredCodes(now: call.now)
            state.addCode(code)
        }
        if returnLink { return Self.oobResponse(email: email, code: code) }
        // Links are secrets: the log shows them in development only, as the emulator does.
        if !settings.production { logger.notice("\(logSafe: ActionCodes.logLine(code))") }
        do {
            try await mail(code)
        } catch {
            // A code whose email never left is of no use to anyone.
            try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) in state.consumeCode(code.code) }
            throw error
        }
        return Self.oobResponse(email: email, code: nil)
    }

    private static func oobResponse(email: String, code: ActionCode?) -> JSONValue {
        .members([
            ("kind", .string("identitytoolkit#GetOobConfirmationCodeResponse")),
            ("email", .string(email)),
            ("oobCode", code.map { .string($0.code) }),
            ("oobLink", code.map { .string($0.link) }),
        ])
    }

    static func isAbsoluteURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        guard scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }), scheme.first!.isLetter else { return false }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return false }
        let host = rest.dropFirst(2).prefix { !"/?#".contains($0) }
        return !host.isEmpty
    }

    /// The unexpired code `text`, else `INVALID_OOB_CODE` (or `EXPIRED_OOB_CODE`).
    private func actionCode(_ text: String, in state: AuthDirectory.State, now: Int64) throws(AuthError) -> ActionCode {
        guard let code = state.codes[text] else { throw .code("INVALID_OOB_CODE") }
        if let expiry = code.expiresAt, expiry < now { throw .code("EXPIRED_OOB_CODE") }
        return code
    }

    /// `accounts:resetPassword` (auth spec §2.10): without `newPassword` reports what a code is
    /// for; with it, sets the password of a `PASSWORD_RESET` code's account.
    func resetPassword(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let text = try body.required("oobCode", else: .code("MISSING_OOB_CODE"))
        guard let newPassword = try body.string("newPassword") else {
            let code = try await directory.read { state throws(AuthError) in try actionCode(text, in: state, now: call.now) }
            return Self.resetResponse(code)
        }
        let peeked = try await directory.read { state throws(AuthError) in try actionCode(text, in: state, now: call.now) }
        guard peeked.kind == .passwordReset else { throw .code("INVALID_OOB_CODE") }
        try AuthFormats.requireStrong(newPassword)
        let stored = try await passwords.hash(newPassword)
        let code = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> ActionCode in
            let code = try actionCode(text, in: state, now: call.now)
            state.consumeCode(text)
            guard let localId = code.localId, var user = state.users[localId] else { throw .code("INVALID_OOB_CODE") }
            user.password = stored
            user.passwordUpdatedAt = call.nowMilliseconds
            user.validSince = call.now
            user.emailVerified = true
            user.providers = []
            state.users.put(user)
            return code
        }
        await abuse?.clear(code.email)
        return Self.resetResponse(code)
    }

    private static func resetResponse(_ code: ActionCode) -> JSONValue {
        .members([
            ("kind", .string("identitytoolkit#ResetPasswordResponse")),
            ("requestType", .string(code.kind.rawValue)),
            ("email", code.kind == .emailSignIn ? nil : .string(code.email)),
            ("newEmail", code.newEmail.map(JSONValue.string)),
        ])
    }

    /// `accounts:update {oobCode}`: verifies an email, changes it to the verified new address, or
    /// restores the previous one.
    func applyActionCode(_ text: String, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let user = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> UserRecord in
            let code = try actionCode(text, in: state, now: call.now)
            guard let localId = code.localId, var user = state.users[localId] else { throw .code("INVALID_OOB_CODE") }
            switch code.kind {
            case .verifyEmail:
                // A code for an address the account no longer has verifies nothing.
                guard user.email == code.email else { throw .code("INVALID_OOB_CODE") }
                user.emailVerified = true
            case .verifyAndChangeEmail:
                guard let newEmail = code.newEmail else { throw .code("INVALID_OOB_CODE") }
                if state.users.users(withEmail: newEmail).contains(where: { $0.localId != localId }) { throw .code("EMAIL_EXISTS") }
                user.email = newEmail
                user.emailVerified = true
                user.validSince = call.now
            case .recoverEmail:
                if state.users.users(withEmail: code.email).contains(where: { $0.localId != localId }) {
                    throw .code("EMAIL_EXISTS")
                }
                user.email = code.email
                user.emailVerified = true
                user.validSince = call.now
            case .passwordReset, .emailSignIn:
                throw .notImplemented("Applying this action code is not implemented; use resetPassword or signInWithEmailLink.")
            }
            state.consumeCode(text)
            state.users.put(user)
            return user
        }
        return .members([
            ("kind", .string("identitytoolkit#SetAccountInfoResponse")),
            ("localId", .string(user.localId)),
            ("email", user.email.map(JSONValue.string)),
            ("emailVerified", .bool(user.emailVerified ?? false)),
        ])
    }

    /// `accounts:signInWithEmailLink` (auth spec §2.5).
    func signInWithEmailLink(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let email = try AuthFormats.email(try body.required("email", else: .code("MISSING_EMAIL")))
        let text = try body.required("oobCode", else: .code("MISSING_OOB_CODE"))
        try await require(\.emailLink, call, or: "OPERATION_NOT_ALLOWED")
        let linked: UserRecord? = if let idToken = try body.string("idToken") { try await user(forIDToken: idToken, call).0 } else { nil }
        let (user, isNew) = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> (UserRecord, Bool) in
            let code = try actionCode(text, in: state, now: call.now)
            guard code.kind == .emailSignIn else { throw .code("INVALID_OOB_CODE") }
            guard code.email == email else {
                throw .code("INVALID_EMAIL", "The email provided does not match the sign-in email address.")
            }
            let owner = state.users.users(withEmail: email).first
            if let linked, let owner, owner.localId != linked.localId { throw .code("EMAIL_EXISTS") }
            var user =
                linked.flatMap { state.users[$0.localId] } ?? owner
                ?? UserRecord(localId: AuthFormats.newUID(), createdAt: call.nowMilliseconds)
            let isNew = state.users[user.localId] == nil
            if user.disabled { throw .code("USER_DISABLED") }
            user.email = email
            user.emailVerified = true
            user.emailLinkSignin = true
            user.lastLoginAt = call.nowMilliseconds
            user.lastRefreshAt = call.nowMilliseconds
            state.consumeCode(text)
            state.users.put(user)
            return (user, isNew)
        }
        return .object(
            [
                JSONMember(key: "kind", value: .string("identitytoolkit#EmailLinkSigninResponse")),
                JSONMember(key: "email", value: .string(email)),
                JSONMember(key: "localId", value: .string(user.localId)),
                JSONMember(key: "isNewUser", value: .bool(isNew)),
            ] + (try await tokenTriple(for: user, provider: "password", call)))
    }
}
