import Foundation

/// Signing in with credentials and custom tokens; linking, unlinking and re-authenticating
/// users; the sign-in methods of an email.
extension Auth {
    /// Signs in with a provider's credential.
    public func signIn(with credential: AuthCredential) async throws -> AuthDataResult {
        switch credential.kind {
        case .emailPassword(let email, let password):
            return try await signIn(withEmail: email, password: password)
        case .emailLink(let email, let link):
            let answer = try await emailLinkSignIn(email: email, link: link, linkingTo: nil)
            return try await signIn(with: answer, provider: EmailAuthProviderID, isNewUser: answer["isNewUser"] as? Bool ?? false)
        case .phone(let verificationID, let code):
            let answer = try await phoneSignIn(verificationID: verificationID, code: code, .signIn)
            return try await signIn(with: answer, provider: PhoneAuthProvider.id, isNewUser: answer["isNewUser"] as? Bool ?? false)
        case .identityProvider:
            let answer = try await identityProvider(credential, linkingTo: nil)
            return try await signIn(with: answer, provider: credential.provider, isNewUser: answer["isNewUser"] as? Bool ?? false)
        }
    }

    public func signIn(with credential: AuthCredential, completion: ((AuthDataResult?, (any Error)?) -> Void)? = nil) {
        run(completion) { try await self.signIn(with: credential) }
    }

    /// Signs in with a custom token your server made (HearthAdmin, or any Firebase Admin SDK).
    public func signIn(withCustomToken token: String) async throws -> AuthDataResult {
        let answer = try await backend.accounts("signInWithCustomToken", ["token": token, "returnSecureToken": true])
        return try await signIn(with: answer, provider: nil, isNewUser: answer["isNewUser"] as? Bool ?? false)
    }

    public func signIn(withCustomToken token: String, completion: ((AuthDataResult?, (any Error)?) -> Void)? = nil) {
        run(completion) { try await self.signIn(withCustomToken: token) }
    }

    /// The ways `email` can sign in (`password`, `google.com`, …). Firebase answers an empty list
    /// when email enumeration protection is on.
    public func fetchSignInMethods(forEmail email: String) async throws -> [String] {
        let answer = try await backend.accounts("createAuthUri", ["identifier": email, "continueUri": "http://localhost"])
        return answer["signinMethods"] as? [String] ?? []
    }

    public func fetchSignInMethods(forEmail email: String, completion: (([String]?, (any Error)?) -> Void)? = nil) {
        run(completion) { try await self.fetchSignInMethods(forEmail: email) }
    }

    /// `accounts:signInWithIdp` for `credential`; with `idToken`, it links the provider to that
    /// user. An IdP account already linked elsewhere is ``AuthErrorCode/credentialAlreadyInUse``.
    func identityProvider(_ credential: AuthCredential, linkingTo idToken: String?, creatingAccounts: Bool = true)
        async throws(AuthError) -> [String: Any]
    {
        var body: [String: Any] = [
            "requestUri": "http://localhost", "postBody": credential.postBody ?? "", "returnSecureToken": true,
            "returnIdpCredential": true, "autoCreate": creatingAccounts,
        ]
        if let idToken { body["idToken"] = idToken }
        let answer = try await backend.accounts("signInWithIdp", body)
        if let message = answer["errorMessage"] as? String { throw AuthError(serverMessage: message) }
        if answer["needConfirmation"] as? Bool == true { throw AuthError(.accountExistsWithDifferentCredential) }
        return answer
    }

    /// Links `credential` to `user`: the account keeps its uid and gains the provider. An account
    /// that has the provider already cannot take it again (`providerAlreadyLinked`).
    func link(_ user: User, with credential: AuthCredential) async throws(AuthError) -> AuthDataResult {
        guard !user.snapshot.providers.contains(where: { $0.providerID == credential.provider }) else {
            throw AuthError(.providerAlreadyLinked)
        }
        let token = try await idToken(of: user, forcingRefresh: false)
        let answer: [String: Any]
        switch credential.kind {
        case .emailPassword(let email, let password):
            // `signUp` with the user's token upgrades the account in place (spec auth-api §2.1).
            answer = try await backend.accounts(
                "signUp", ["idToken": token, "email": email, "password": password, "returnSecureToken": true])
        case .emailLink(let email, let link):
            answer = try await emailLinkSignIn(email: email, link: link, linkingTo: token)
        case .phone(let verificationID, let code):
            answer = try await phoneSignIn(verificationID: verificationID, code: code, .link, idToken: token)
        case .identityProvider:
            answer = try await identityProvider(credential, linkingTo: token)
        }
        try await refreshSession(of: user, with: answer)
        return AuthDataResult(
            user: user, additionalUserInfo: AdditionalUserInfo(providerID: credential.provider, isNewUser: false, answer: answer),
            answer: answer)
    }

    /// Removes `providerID` from `user`'s account.
    func unlink(_ user: User, from providerID: String) async throws(AuthError) {
        guard user.snapshot.providers.contains(where: { $0.providerID == providerID }) else { throw AuthError(.noSuchProvider) }
        let token = try await idToken(of: user, forcingRefresh: false)
        let answer = try await backend.accounts("update", ["idToken": token, "deleteProvider": [providerID], "returnSecureToken": true])
        try await refreshSession(of: user, with: answer)
    }

    /// Signs in again as `user` with `credential` (before sensitive operations); another
    /// account's credential, or one of no account, is ``AuthErrorCode/userMismatch``.
    func reauthenticate(_ user: User, with credential: AuthCredential) async throws(AuthError) -> AuthDataResult {
        let answer: [String: Any]
        do {
            answer = try await reauthenticationAnswer(credential)
        } catch  where error.code == .userNotFound {
            throw AuthError(.userMismatch)
        }
        guard answer["localId"] as? String == user.uid else { throw AuthError(.userMismatch) }
        try await refreshSession(of: user, with: answer)
        return AuthDataResult(user: user, additionalUserInfo: AdditionalUserInfo(providerID: credential.provider, isNewUser: false))
    }

    /// The sign-in answer for `credential` that re-authentication checks; no account is made.
    private func reauthenticationAnswer(_ credential: AuthCredential) async throws(AuthError) -> [String: Any] {
        switch credential.kind {
        case .emailPassword(let email, let password):
            try await backend.accounts("signInWithPassword", ["email": email, "password": password, "returnSecureToken": true])
        case .emailLink(let email, let link):
            try await emailLinkSignIn(email: email, link: link, linkingTo: nil)
        case .phone(let verificationID, let code):
            try await phoneSignIn(verificationID: verificationID, code: code, .reauthenticate)
        case .identityProvider:
            try await identityProvider(credential, linkingTo: nil, creatingAccounts: false)
        }
    }

    /// Takes the new tokens of `answer` and the account's current profile into `user`.
    func refreshSession(of user: User, with answer: [String: Any]) async throws(AuthError) {
        let withTokens = user.update { $0.applyTokens(answer) }
        let record = try await lookUp(idToken: withTokens.idToken)
        commit(user.update { $0.applyProfile(record) }, of: user, tokenChanged: true)
    }
}
