import Foundation

/// Phone-number sign-in: a code sent by SMS proves the number (in development Hearth logs the
/// code and lists it at the emulator's `verificationCodes`, as the Auth emulator does; Hearth in
/// production has no SMS provider and refuses).
public final class PhoneAuthProvider: Sendable {
    /// The id of phone sign-in.
    public static let id = "phone"

    private let auth: Auth

    private init(auth: Auth) {
        self.auth = auth
    }

    /// The provider of the default app's auth.
    public static func provider() -> PhoneAuthProvider {
        PhoneAuthProvider(auth: Auth.auth())
    }

    /// The provider of `auth`.
    public static func provider(auth: Auth) -> PhoneAuthProvider {
        PhoneAuthProvider(auth: auth)
    }

    /// Sends a code to `phoneNumber` (E.164, `+` and digits) and answers the verification ID to
    /// make the credential with. There is no app verification (reCAPTCHA or APNs), so
    /// `uiDelegate` is not used.
    public func verifyPhoneNumber(_ phoneNumber: String, uiDelegate: (any AuthUIDelegate)? = nil) async throws -> String {
        guard !phoneNumber.isEmpty else { throw AuthError(.missingPhoneNumber) }
        let answer = try await auth.backend.accounts("sendVerificationCode", ["phoneNumber": phoneNumber])
        guard let verificationID = answer["sessionInfo"] as? String else {
            throw AuthError(.internalError, failureReason: "the answer has no sessionInfo")
        }
        return verificationID
    }

    public func verifyPhoneNumber(
        _ phoneNumber: String, uiDelegate: (any AuthUIDelegate)? = nil, completion: ((String?, (any Error)?) -> Void)?
    ) {
        auth.run(completion) { try await self.verifyPhoneNumber(phoneNumber) }
    }

    /// The credential of a code the user received for `verificationID`.
    public func credential(withVerificationID verificationID: String, verificationCode: String) -> PhoneAuthCredential {
        PhoneAuthCredential(verificationID: verificationID, verificationCode: verificationCode)
    }
}

/// A phone number proven by a code: sign in, link or re-authenticate with it, or set it with
/// ``User/updatePhoneNumber(_:)``.
public final class PhoneAuthCredential: AuthCredential, @unchecked Sendable {
    init(verificationID: String, verificationCode: String) {
        super.init(provider: PhoneAuthProvider.id, kind: .phone(verificationID: verificationID, code: verificationCode))
    }
}

/// What presents the web views of app verification in Firebase (reCAPTCHA); Hearth verifies no
/// app, so nothing is asked of it.
public protocol AuthUIDelegate: AnyObject {}

extension Auth {
    /// The operations `accounts:signInWithPhoneNumber` is asked for.
    enum PhoneOperation: String {
        case signIn = "SIGN_UP_OR_IN"
        case reauthenticate = "REAUTH"
        case link = "LINK"
        case update = "UPDATE"
    }

    /// `accounts:signInWithPhoneNumber` with a verification ID and code; with `idToken`, the
    /// number goes to that user's account. A number another account has is
    /// ``AuthErrorCode/credentialAlreadyInUse``.
    func phoneSignIn(verificationID: String, code: String, _ operation: PhoneOperation, idToken: String? = nil)
        async throws(AuthError) -> [String: Any]
    {
        guard !verificationID.isEmpty else { throw AuthError(.missingVerificationID) }
        guard !code.isEmpty else { throw AuthError(.missingVerificationCode) }
        var body: [String: Any] = ["sessionInfo": verificationID, "code": code, "operation": operation.rawValue]
        if let idToken { body["idToken"] = idToken }
        return try await backend.accounts("signInWithPhoneNumber", body)
    }
}

extension User {
    /// Sets the account's phone number to the one `credential` proves (replacing any other).
    public func updatePhoneNumber(_ credential: PhoneAuthCredential) async throws {
        guard case .phone(let verificationID, let code) = credential.kind else { return }
        let auth = try requireAuth()
        let token = try await auth.idToken(of: self, forcingRefresh: false)
        let answer = try await auth.phoneSignIn(verificationID: verificationID, code: code, .update, idToken: token)
        try await auth.refreshSession(of: self, with: answer)
    }

    public func updatePhoneNumber(_ credential: PhoneAuthCredential, completion: (((any Error)?) -> Void)? = nil) {
        run(completion) { try await self.updatePhoneNumber(credential) }
    }
}
