import Foundation

/// The out-of-band codes of email actions (password reset, email verification, email change),
/// for apps that handle the links themselves.
extension Auth {
    /// The email whose password `code` resets.
    public func verifyPasswordResetCode(_ code: String) async throws -> String {
        let answer = try await backend.accounts("resetPassword", ["oobCode": code])
        return answer["email"] as? String ?? ""
    }

    public func verifyPasswordResetCode(_ code: String, completion: ((String?, (any Error)?) -> Void)? = nil) {
        run(completion) { try await self.verifyPasswordResetCode(code) }
    }

    /// Sets the password `code` was sent to reset.
    public func confirmPasswordReset(withCode code: String, newPassword: String) async throws {
        _ = try await backend.accounts("resetPassword", ["oobCode": code, "newPassword": newPassword])
    }

    public func confirmPasswordReset(withCode code: String, newPassword: String, completion: (((any Error)?) -> Void)? = nil) {
        run(completion) { try await self.confirmPasswordReset(withCode: code, newPassword: newPassword) }
    }

    /// What `code` is for, without using it.
    public func checkActionCode(_ code: String) async throws -> ActionCodeInfo {
        let answer = try await backend.accounts("resetPassword", ["oobCode": code])
        return ActionCodeInfo(answer)
    }

    public func checkActionCode(_ code: String, completion: ((ActionCodeInfo?, (any Error)?) -> Void)? = nil) {
        run(completion) { try await self.checkActionCode(code) }
    }

    /// Carries out `code`'s action (verifies the email, changes it, …).
    public func applyActionCode(_ code: String) async throws {
        _ = try await backend.accounts("update", ["oobCode": code])
    }

    public func applyActionCode(_ code: String, completion: (((any Error)?) -> Void)? = nil) {
        run(completion) { try await self.applyActionCode(code) }
    }
}

/// The kinds of email action, under Firebase's names and raw values.
public enum ActionCodeOperation: Int, Sendable {
    case unknown, passwordReset, verifyEmail, recoverEmail, emailLink, verifyAndChangeEmail, revertSecondFactorAddition
}

/// What an email action code does, and to which address.
public struct ActionCodeInfo: Sendable {
    public let operation: ActionCodeOperation
    /// The address the code was sent to (for an email change, the new one).
    public let email: String
    /// For an email change or recovery, the address before it.
    public let previousEmail: String?

    init(_ answer: [String: Any]) {
        operation =
            switch answer["requestType"] as? String {
            case "PASSWORD_RESET": .passwordReset
            case "VERIFY_EMAIL": .verifyEmail
            case "RECOVER_EMAIL": .recoverEmail
            case "EMAIL_SIGNIN": .emailLink
            case "VERIFY_AND_CHANGE_EMAIL": .verifyAndChangeEmail
            case "REVERT_SECOND_FACTOR_ADDITION": .revertSecondFactorAddition
            default: .unknown
            }
        let newEmail = answer["newEmail"] as? String
        email = newEmail ?? answer["email"] as? String ?? ""
        previousEmail = newEmail == nil ? nil : answer["email"] as? String
    }
}
