import HearthCore

extension AuthService {
    /// `securetoken /v1/token` (auth spec §2.12): a new ID token for a refresh token, answered in
    /// snake_case with `access_token` equal to `id_token` (both official clients read the former).
    ///
    /// Sessions of disabled users (`USER_DISABLED`), and sessions begun before `validSince` or
    /// before the account was made again under the same uid (`TOKEN_EXPIRED`), are refused in
    /// both modes: unlike the emulator's, development data lasts, so a revoked session must stay
    /// revoked. Sessions of deleted users are `USER_NOT_FOUND` in production and
    /// `INVALID_REFRESH_TOKEN` in development, as the emulator answers.
    func refresh(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let token = try body.string("refreshToken")
        var session: RefreshSession?
        if let token, !token.isEmpty {
            do {
                session = try await tokens.session(forRefreshToken: token)
            } catch {
                logger.error("could not read the session", metadata: ["error": "\(error)"])
                throw .internalError("Could not read the session.")
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
                // A session of an account deleted and then made again under the same uid.
                if session.issuedAt < user.createdAt / 1000 { throw .code("TOKEN_EXPIRED") }
                if let validSince = user.validSince, session.issuedAt < validSince { throw .code("TOKEN_EXPIRED") }
                user.lastRefreshAt = call.nowMilliseconds
                state.users.touch(user)
                return user
            }
        } catch {
            // A session that can never be used again is forgotten.
            if ["USER_NOT_FOUND", "TOKEN_EXPIRED"].contains(error.message), let token {
                try? await tokens.forget(refreshToken: token)
            }
            throw error
        }
        let idToken: String
        do {
            idToken = try await tokens.idToken(for: user, session: session, now: call.now)
        } catch {
            logger.error("could not mint tokens", metadata: ["error": "\(error)"])
            throw .internalError("Could not mint tokens.")
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
}
