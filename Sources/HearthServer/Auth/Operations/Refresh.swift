import HearthCore

extension AuthService {
    /// `securetoken /v1/token` (auth spec §2.12): a new ID token for a refresh token, answered in
    /// snake_case with `access_token` equal to `id_token` (both official clients read the former).
    ///
    /// Production refuses sessions of deleted (`USER_NOT_FOUND`) and disabled users and sessions
    /// begun before `validSince` (`TOKEN_EXPIRED`); development answers `INVALID_REFRESH_TOKEN`
    /// for unknown users and never revokes by time, as the emulator.
    func refresh(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let token = try body.string("refreshToken")
        var session: RefreshSession?
        if let token, !token.isEmpty {
            do {
                session = try await tokens.session(forRefreshToken: token)
            } catch {
                throw .internalError("Could not read the session: \(error)")
            }
            if session == nil || session?.projectId != settings.projectID { throw .code("INVALID_REFRESH_TOKEN") }
        }
        guard let grant = try body.string("grantType"), !grant.isEmpty else { throw .code("MISSING_GRANT_TYPE") }
        guard grant == "refresh_token" else { throw .code("INVALID_GRANT_TYPE") }
        guard let session else { throw .code("MISSING_REFRESH_TOKEN") }
        let production = settings.production
        let user: UserRecord
        do {
            // The refresh time is not worth an fsync of its own: it is saved with the next change.
            user = try await directory.touch { (state: inout AuthDirectory.State) throws(AuthError) -> UserRecord in
                guard var user = state.users[session.localId] else {
                    throw .code(production ? "USER_NOT_FOUND" : "INVALID_REFRESH_TOKEN")
                }
                if user.disabled { throw .code("USER_DISABLED") }
                if production, let validSince = user.validSince, session.issuedAt < validSince { throw .code("TOKEN_EXPIRED") }
                user.lastRefreshAt = call.nowMilliseconds
                state.users.touch(user)
                return user
            }
        } catch {
            // A session that can never be used again is forgotten.
            if production, ["USER_NOT_FOUND", "TOKEN_EXPIRED"].contains(error.message), let token {
                try? await tokens.forget(refreshToken: token)
            }
            throw error
        }
        let idToken: String
        do {
            idToken = try await tokens.idToken(for: user, session: session, now: call.now)
        } catch {
            throw .internalError("Could not mint tokens: \(error)")
        }
        return .object([
            JSONMember(key: "access_token", value: .string(idToken)),
            JSONMember(key: "expires_in", value: .string("3600")),
            JSONMember(key: "token_type", value: .string("Bearer")),
            JSONMember(key: "refresh_token", value: .string(token ?? "")),
            JSONMember(key: "id_token", value: .string(idToken)),
            JSONMember(key: "user_id", value: .string(user.localId)),
            JSONMember(key: "project_id", value: .string(settings.projectNumber)),
        ])
    }

    /// `accounts:createAuthUri` (auth spec §2.11): the sign-in methods of an email.
    func createAuthUri(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let identifier = try body.required("identifier", else: .code("MISSING_IDENTIFIER"))
        let continueUri = try body.required("continueUri", else: .code("MISSING_CONTINUE_URI"))
        guard AuthFormats.isValidEmail(identifier) else { throw .code("INVALID_IDENTIFIER") }
        guard Self.isAbsoluteURL(continueUri) else { throw .code("INVALID_CONTINUE_URI") }
        if body.has("providerId") { throw .notImplemented("createAuthUri with providerId is not implemented.") }
        let sessionId = try body.string("sessionId") ?? AuthFormats.newSessionID()
        let email = identifier.lowercased()
        let (user, config) = await directory.read { ($0.users.users(withEmail: email).first, $0.config) }
        var members = [
            JSONMember(key: "kind", value: .string("identitytoolkit#CreateAuthUriResponse")),
            JSONMember(key: "sessionId", value: .string(sessionId)),
        ]
        guard !config.enableImprovedEmailPrivacy else { return .object(members) }
        var methods = user?.signInMethods ?? []
        if !config.allowDuplicateEmails { methods += user?.providers.map(\.providerId) ?? [] }
        members.append(JSONMember(key: "registered", value: .bool(user != nil)))
        members.append(JSONMember(key: "allProviders", value: .array(methods.filter { $0 != "emailLink" }.map(JSONValue.string))))
        members.append(JSONMember(key: "signinMethods", value: .array(methods.map(JSONValue.string))))
        return .object(members)
    }

    /// `projects:createSessionCookie` (auth spec §2.13, §4.7).
    func createSessionCookie(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let idToken = try body.required("idToken", else: .code("MISSING_ID_TOKEN"))
        let duration = try body.int64("validDuration") ?? 14 * 24 * 3600
        guard (300...1_209_600).contains(duration) else { throw .code("INVALID_DURATION") }
        let (_, claims) = try await user(forIDToken: idToken, call)
        do {
            let cookie = try await tokens.sessionCookie(from: claims, duration: duration, now: call.now)
            return .object([JSONMember(key: "sessionCookie", value: .string(cookie))])
        } catch {
            throw .internalError("Could not mint the session cookie: \(error)")
        }
    }
}
