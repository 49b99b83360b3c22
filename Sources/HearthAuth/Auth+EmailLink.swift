import Foundation

/// Email-link sign-in: a link mailed to the address signs its owner in, without a password
/// (spec auth-api §2.5, §10.2).
extension Auth {
    /// Mails `email` a sign-in link (in development, to Hearth's outbox). `actionCodeSettings`
    /// must have ``ActionCodeSettings/handleCodeInApp`` set, as Firebase requires.
    public func sendSignInLink(toEmail email: String, actionCodeSettings: ActionCodeSettings) async throws {
        Self.requireHandleCodeInApp(actionCodeSettings)
        try await sendOobCode("EMAIL_SIGNIN", ["email": email], settings: actionCodeSettings)
    }

    public func sendSignInLink(
        toEmail email: String, actionCodeSettings: ActionCodeSettings, completion: (((any Error)?) -> Void)? = nil
    ) {
        Self.requireHandleCodeInApp(actionCodeSettings)
        run(completion) { try await self.sendSignInLink(toEmail: email, actionCodeSettings: actionCodeSettings) }
    }

    /// Stops the program, as Firebase does, when sign-in link settings do not let the app handle
    /// the link: a programming error.
    private static func requireHandleCodeInApp(_ settings: ActionCodeSettings) {
        precondition(
            settings.handleCodeInApp, "The handleCodeInApp flag in ActionCodeSettings must be true for Email-link Authentication.")
    }

    /// Whether `link` is an email sign-in link: it carries an `oobCode` and `mode=signIn`,
    /// itself or in a nested `link` or `deep_link_id` parameter.
    public func isSignIn(withEmailLink link: String) -> Bool {
        Self.signInCode(in: link) != nil
    }

    /// Signs in the owner of `email` with the link mailed to it; an address without an account
    /// gets a new one. The link must pass ``isSignIn(withEmailLink:)``.
    public func signIn(withEmail email: String, link: String) async throws -> AuthDataResult {
        try await signIn(with: EmailAuthProvider.credential(withEmail: email, link: link))
    }

    public func signIn(withEmail email: String, link: String, completion: ((AuthDataResult?, (any Error)?) -> Void)? = nil) {
        run(completion) { try await self.signIn(withEmail: email, link: link) }
    }

    /// `accounts:signInWithEmailLink` for the code in `link`; with `idToken`, the address is
    /// added to that user's account.
    func emailLinkSignIn(email: String, link: String, linkingTo idToken: String?) async throws(AuthError) -> [String: Any] {
        guard let code = Self.signInCode(in: link) else {
            preconditionFailure(
                "The link provided is not valid for email/link sign-in. Please check the link by calling "
                    + "isSignIn(withEmailLink:) on the Auth instance before attempting to use it for email/link sign-in.")
        }
        var body: [String: Any] = ["email": email, "oobCode": code, "returnSecureToken": true]
        if let idToken { body["idToken"] = idToken }
        return try await backend.accounts("signInWithEmailLink", body)
    }

    /// The `oobCode` of a sign-in link, looked for in the link and in its nested links.
    private static func signInCode(in link: String) -> String? {
        guard let items = URLComponents(string: link)?.queryItems else { return nil }
        let value = { (name: String) in items.first { $0.name == name }?.value }
        if value("mode") == "signIn", let code = value("oobCode"), !code.isEmpty { return code }
        for nested in ["link", "deep_link_id"] {
            if let inner = value(nested), let code = signInCode(in: inner) { return code }
        }
        return nil
    }
}
