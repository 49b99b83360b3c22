import Foundation
@_spi(HearthSDK) import HearthApp

/// Signing up, in and out, password reset, and the account calls of ``User``.
extension Auth {
    /// Creates an email/password account and signs it in.
    public func createUser(withEmail email: String, password: String) async throws -> AuthDataResult {
        let answer = try await backend.accounts("signUp", ["email": email, "password": password, "returnSecureToken": true])
        return try await signIn(with: answer, provider: "password", isNewUser: true)
    }

    public func createUser(
        withEmail email: String, password: String, completion: ((AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        run(completion) { try await self.createUser(withEmail: email, password: password) }
    }

    /// Signs in with an email and password.
    public func signIn(withEmail email: String, password: String) async throws -> AuthDataResult {
        let answer = try await backend.accounts(
            "signInWithPassword", ["email": email, "password": password, "returnSecureToken": true])
        return try await signIn(with: answer, provider: "password", isNewUser: false)
    }

    public func signIn(
        withEmail email: String, password: String, completion: ((AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        run(completion) { try await self.signIn(withEmail: email, password: password) }
    }

    /// Signs in as a new anonymous user, or returns the current one if it is anonymous.
    public func signInAnonymously() async throws -> AuthDataResult {
        if let user = currentUser, user.isAnonymous {
            return AuthDataResult(user: user, additionalUserInfo: AdditionalUserInfo(providerID: nil, isNewUser: false))
        }
        let answer = try await backend.accounts("signUp", ["returnSecureToken": true])
        return try await signIn(with: answer, provider: nil, isNewUser: true, anonymous: true)
    }

    public func signInAnonymously(completion: ((AuthDataResult?, (any Error)?) -> Void)? = nil) {
        run(completion) { try await self.signInAnonymously() }
    }

    /// Signs the current user out (here only; the account and its refresh tokens stay).
    public func signOut() throws {
        guard currentUser != nil else { return }
        _ = setCurrentUser(nil)
    }

    /// Sends a password-reset email (in development, to Hearth's outbox); `actionCodeSettings`
    /// say where its link continues.
    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try await sendOobCode("PASSWORD_RESET", ["email": email], settings: actionCodeSettings)
    }

    public func sendPasswordReset(withEmail email: String, completion: (((any Error)?) -> Void)? = nil) {
        run(completion) { try await self.sendPasswordReset(withEmail: email) }
    }

    public func sendPasswordReset(
        withEmail email: String, actionCodeSettings: ActionCodeSettings?, completion: (((any Error)?) -> Void)? = nil
    ) {
        run(completion) { try await self.sendPasswordReset(withEmail: email, actionCodeSettings: actionCodeSettings) }
    }

    /// The user of a sign-in answer, with its profile looked up, made current.
    func signIn(with answer: [String: Any], provider: String?, isNewUser: Bool, anonymous: Bool = false) async throws(AuthError)
        -> AuthDataResult
    {
        guard var session = UserSession(signIn: answer) else {
            throw AuthError(.internalError, failureReason: "the sign-in answer lacks localId, idToken or refreshToken")
        }
        session.signedInAnonymously = anonymous
        session.issuer = backend.emulator
        session.applyProfile(try await lookUp(idToken: session.idToken))
        let user = setCurrentUser(session)!
        return AuthDataResult(
            user: user, additionalUserInfo: AdditionalUserInfo(providerID: provider, isNewUser: isNewUser, answer: answer),
            answer: answer)
    }

    func lookUp(idToken: String) async throws(AuthError) -> [String: Any] {
        let answer = try await backend.accounts("lookup", ["idToken": idToken])
        guard let record = (answer["users"] as? [[String: Any]])?.first else { throw AuthError(.userNotFound) }
        return record
    }

    func reload(_ user: User) async throws(AuthError) {
        let token = try await idToken(of: user, forcingRefresh: false)
        let record: [String: Any]
        do {
            record = try await lookUp(idToken: token)
        } catch {
            if error.endsSession, currentUser === user { _ = setCurrentUser(nil) }
            throw error
        }
        commit(user.update { $0.applyProfile(record) }, of: user, tokenChanged: false)
    }

    func delete(_ user: User) async throws(AuthError) {
        let token = try await idToken(of: user, forcingRefresh: false)
        _ = try await backend.accounts("delete", ["idToken": token])
        if currentUser === user { _ = setCurrentUser(nil) }
    }

    /// Runs `operation` and hands its result or error to `completion` on the callback queue.
    func run<Result: Sendable>(
        _ completion: ((Result?, (any Error)?) -> Void)?, _ operation: @escaping @Sendable () async throws -> Result
    ) {
        let completion = UncheckedSendable(completion)
        Task {
            do {
                let result = try await operation()
                callBack { completion.value?(result, nil) }
            } catch {
                callBack { completion.value?(nil, error) }
            }
        }
    }

    /// Runs `operation` and hands its error, if any, to `completion` on the callback queue.
    func run(_ completion: (((any Error)?) -> Void)?, _ operation: @escaping @Sendable () async throws -> Void) {
        run(completion.map { done in { (_: Bool?, error) in done(error) } }) {
            try await operation()
            return true
        }
    }
}
