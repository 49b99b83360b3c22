import Foundation

/// Changing the account: profile, password, email verification, providers, and
/// re-authentication.
extension User {
    /// A change of display name and photo URL, made with ``UserProfileChangeRequest/commitChanges()``.
    public func createProfileChangeRequest() -> UserProfileChangeRequest {
        UserProfileChangeRequest(user: self)
    }

    /// Sets the password (a recent sign-in is required).
    public func updatePassword(to password: String) async throws {
        let auth = try requireAuth()
        let token = try await auth.idToken(of: self, forcingRefresh: false)
        let answer = try await auth.backend.accounts("update", ["idToken": token, "password": password, "returnSecureToken": true])
        try await auth.refreshSession(of: self, with: answer)
    }

    public func updatePassword(to password: String, completion: (((any Error)?) -> Void)? = nil) {
        run(completion) { try await self.updatePassword(to: password) }
    }

    /// Sets the account's email at once (a recent sign-in is required), as Firebase's deprecated
    /// call does; ``sendEmailVerification(beforeUpdatingEmail:actionCodeSettings:)`` changes it
    /// only once the new address is verified.
    @available(
        *, deprecated,
        message:
            "`updateEmail` is deprecated and will be removed in a future release. Use sendEmailVerification(beforeUpdatingEmail:) instead."
    )
    public func updateEmail(to email: String) async throws {
        let auth = try requireAuth()
        let token = try await auth.idToken(of: self, forcingRefresh: false)
        let answer = try await auth.backend.accounts("update", ["idToken": token, "email": email, "returnSecureToken": true])
        try await auth.refreshSession(of: self, with: answer)
    }

    @available(
        *, deprecated,
        message:
            "`updateEmail` is deprecated and will be removed in a future release. Use sendEmailVerification(beforeUpdatingEmail:) instead."
    )
    public func updateEmail(to email: String, completion: (((any Error)?) -> Void)? = nil) {
        run(completion) { try await self.updateEmail(to: email) }
    }

    /// Sends the email that verifies the user's address; `actionCodeSettings` say where its link
    /// continues.
    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings? = nil) async throws {
        let auth = try requireAuth()
        let token = try await auth.idToken(of: self, forcingRefresh: false)
        try await auth.sendOobCode("VERIFY_EMAIL", ["idToken": token], settings: actionCodeSettings)
    }

    public func sendEmailVerification(completion: (((any Error)?) -> Void)? = nil) {
        run(completion) { try await self.sendEmailVerification() }
    }

    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings?, completion: (((any Error)?) -> Void)? = nil) {
        run(completion) { try await self.sendEmailVerification(with: actionCodeSettings) }
    }

    /// Sends a link to `email` that makes it the user's address once followed.
    public func sendEmailVerification(beforeUpdatingEmail email: String, actionCodeSettings: ActionCodeSettings? = nil)
        async throws
    {
        let auth = try requireAuth()
        let token = try await auth.idToken(of: self, forcingRefresh: false)
        try await auth.sendOobCode(
            "VERIFY_AND_CHANGE_EMAIL", ["idToken": token, "newEmail": email], settings: actionCodeSettings)
    }

    public func sendEmailVerification(
        beforeUpdatingEmail email: String, actionCodeSettings: ActionCodeSettings? = nil,
        completion: (((any Error)?) -> Void)? = nil
    ) {
        run(completion) {
            try await self.sendEmailVerification(beforeUpdatingEmail: email, actionCodeSettings: actionCodeSettings)
        }
    }

    /// Adds a provider to the account; the uid stays (an anonymous user keeps their data).
    public func link(with credential: AuthCredential) async throws -> AuthDataResult {
        try await requireAuth().link(self, with: credential)
    }

    public func link(with credential: AuthCredential, completion: ((AuthDataResult?, (any Error)?) -> Void)? = nil) {
        run(completion) { try await self.link(with: credential) }
    }

    /// Removes a provider from the account.
    @discardableResult
    public func unlink(fromProvider provider: String) async throws -> User {
        try await requireAuth().unlink(self, from: provider)
        return self
    }

    public func unlink(fromProvider provider: String, completion: ((User?, (any Error)?) -> Void)? = nil) {
        run(completion) { try await self.unlink(fromProvider: provider) }
    }

    /// Signs in again with `credential` (for operations that need a recent sign-in).
    @discardableResult
    public func reauthenticate(with credential: AuthCredential) async throws -> AuthDataResult {
        try await requireAuth().reauthenticate(self, with: credential)
    }

    public func reauthenticate(with credential: AuthCredential, completion: ((AuthDataResult?, (any Error)?) -> Void)? = nil) {
        run(completion) { try await self.reauthenticate(with: credential) }
    }
}

/// A change of a user's display name and photo URL.
public final class UserProfileChangeRequest: @unchecked Sendable {
    private let user: User
    /// The new display name; `nil` removes it.
    public var displayName: String?
    /// The new photo URL; `nil` removes it.
    public var photoURL: URL?

    init(user: User) {
        self.user = user
        displayName = user.displayName
        photoURL = user.photoURL
    }

    /// Saves the change on the server and in the user.
    public func commitChanges() async throws {
        let auth = try user.requireAuth()
        let token = try await auth.idToken(of: user, forcingRefresh: false)
        var body: [String: Any] = ["idToken": token, "returnSecureToken": true]
        var deleted: [String] = []
        if let displayName { body["displayName"] = displayName } else { deleted.append("DISPLAY_NAME") }
        if let photoURL { body["photoUrl"] = photoURL.absoluteString } else { deleted.append("PHOTO_URL") }
        if !deleted.isEmpty { body["deleteAttribute"] = deleted }
        let answer = try await auth.backend.accounts("update", body)
        try await auth.refreshSession(of: user, with: answer)
    }

    public func commitChanges(completion: (((any Error)?) -> Void)? = nil) {
        user.run(completion) { try await self.commitChanges() }
    }
}
