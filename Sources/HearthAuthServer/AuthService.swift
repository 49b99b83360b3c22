import HearthCore
import HearthEdge
import HearthSMTP
import Logging
import NIOCore
import NIOPosix

/// Authentication: the Identity Toolkit and Secure Token APIs of Firebase Auth, over the accounts
/// of one project.
///
/// Each operation (`Operations/`) reads a request body and answers the response JSON or an
/// ``AuthError``; ``AuthEndpoint`` does the HTTP around them.
public struct AuthService: Sendable {
    let settings: AuthSettings
    let directory: AuthDirectory
    let tokens: TokenService
    let passwords: PasswordService
    let identities: IdentityVerifier
    /// Production's rate limits; `nil` in development.
    let abuse: AbuseProtection?
    /// Delivers action emails when an SMTP server is configured.
    let mailer: ActionMailer?
    /// The templates the mailer writes emails from, editable from the console with or without SMTP.
    let emailTemplates: EmailTemplateStore
    let logger: Logger

    /// Opens the accounts, keys and hash configuration of the store at `location`, creating
    /// them on first start.
    package static func open(
        _ location: AuthStoreLocation, settings: AuthSettings, now: Int64, logger: Logger
    ) async throws -> AuthService {
        // Hashing has threads of its own: a burst of sign-ins never holds up file I/O or other
        // work that uses the shared pool.
        let threadPool = NIOThreadPool(numberOfThreads: System.coreCount)
        threadPool.start()
        let store = try await location.open(logger: logger)
        // What fails after the store opened must not leave it (or the threads) open.
        do {
            let keys = try await SigningKeys.open(store: store, now: now)
            let templates = try EmailTemplateStore(directory: settings.emailTemplatesDirectory)
            let mailer = try settings.smtpURL.map { url in
                ActionMailer(delivery: try SMTPDelivery(url: url), templates: templates, appName: settings.projectID)
            }
            return AuthService(
                settings: settings,
                directory: try await AuthDirectory.open(store: store, logger: logger),
                tokens: TokenService(projectID: settings.projectID, production: settings.production, keys: keys, store: store),
                passwords: try await PasswordService.open(store: store, threadPool: threadPool),
                identities: IdentityVerifier(settings: settings.identityProviders, production: settings.production),
                abuse: settings.production
                    ? AbuseProtection(signUpsPerHour: settings.signUpsPerHour, counters: store.makeAbuseCounters()) : nil,
                mailer: mailer, emailTemplates: templates, logger: logger)
        } catch {
            await store.close()
            try? await threadPool.shutdownGracefully()
            throw error
        }
    }

    /// Why accounts cannot be read or written now, or `nil` when they can.
    public func unavailability() async -> String? {
        await directory.store.unavailability()
    }

    public func close() async {
        try? await passwords.threadPool.shutdownGracefully()
        await directory.store.close()
    }

    // MARK: Shared steps

    /// The user an ID token stands for, after the checks of auth spec §4.5: a valid token, an
    /// existing user, not revoked (`iat >= validSince`), not disabled.
    func user(forIDToken token: String?, _ call: AuthCall) async throws(AuthError) -> (UserRecord, JWTClaims) {
        guard let token, !token.isEmpty else { throw .code("MISSING_ID_TOKEN") }
        let claims: JWTClaims
        do {
            claims = try await tokens.verify(token, now: call.now)
        } catch {
            throw error == .expired ? .code("TOKEN_EXPIRED") : .code("INVALID_ID_TOKEN")
        }
        let uid = claims.string("sub") ?? claims.string("user_id") ?? ""
        guard let user = try await directory.read({ $0.users[uid] }) else { throw .code("USER_NOT_FOUND") }
        if let validSince = user.validSince, (claims.seconds("iat") ?? 0) < validSince { throw .code("TOKEN_EXPIRED") }
        if user.disabled { throw .code("USER_DISABLED") }
        return (user, claims)
    }

    /// Sends `code`'s email if an SMTP server is configured; throws `503` when it cannot be sent.
    func mail(_ code: ActionCode) async throws(AuthError) {
        guard let mailer else { return }
        let displayName = try await directory.read { state in code.localId.flatMap { state.users[$0]?.displayName } }
        do {
            try await mailer.send(code, displayName: displayName)
        } catch {
            logger.error("could not send the \(code.kind.mode) email to \(logSafe: code.email): \(logSafe: error)")
            throw AuthError.unavailable("The email could not be sent.")
        }
    }

    /// `idToken`, `refreshToken` and `expiresIn` for a new sign-in session of `user`.
    func tokenTriple(
        for user: UserRecord, provider: String, extraClaims: String? = nil, authTime: Int64? = nil, _ call: AuthCall
    ) async throws(AuthError) -> [JSONMember] {
        let session = RefreshSession(
            localId: user.localId, provider: provider, extraClaims: extraClaims, projectId: settings.projectID,
            tenantId: user.tenantId, authTime: authTime ?? call.now, issuedAt: call.now)
        do {
            return [
                JSONMember(key: "idToken", value: .string(try await tokens.idToken(for: user, session: session, now: call.now))),
                JSONMember(key: "refreshToken", value: .string(try await tokens.refreshToken(for: session))),
                JSONMember(key: "expiresIn", value: .string("3600")),
            ]
        } catch {
            logger.error("could not mint tokens", metadata: ["error": "\(error)"])
            throw .internalError("Could not mint tokens.")
        }
    }

    /// Refuses a sensitive change when the token's sign-in is older than the recent-login window.
    func requireRecentLogin(_ claims: JWTClaims, _ call: AuthCall) throws(AuthError) {
        guard let window = settings.recentLoginWindow else { return }
        if call.now - (claims.seconds("auth_time") ?? 0) > window { throw .code("CREDENTIAL_TOO_OLD_LOGIN_AGAIN") }
    }

    /// The sign-in provider of a token, used for the tokens an update re-issues.
    static func signInProvider(of claims: JWTClaims) -> String {
        guard case .string(let provider)? = claims["firebase"]?["sign_in_provider"] else { return "custom" }
        return provider
    }
}
