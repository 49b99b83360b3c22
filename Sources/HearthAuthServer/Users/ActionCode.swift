/// A one-time email action code (`oobCode`, auth spec §10): what it does, for whom, and until
/// when.
struct ActionCode: Codable, Sendable, Equatable {
    /// The kinds of action, by their `requestType` names.
    enum Kind: String, Codable, Sendable {
        case passwordReset = "PASSWORD_RESET"
        case verifyEmail = "VERIFY_EMAIL"
        case emailSignIn = "EMAIL_SIGNIN"
        case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
        case recoverEmail = "RECOVER_EMAIL"

        /// The `mode` of the action link.
        var mode: String {
            switch self {
            case .passwordReset: "resetPassword"
            case .verifyEmail: "verifyEmail"
            case .emailSignIn: "signIn"
            case .verifyAndChangeEmail: "verifyAndChangeEmail"
            case .recoverEmail: "recoverEmail"
            }
        }

        /// How long a code stays valid in production (auth spec §10.3).
        var lifetimeSeconds: Int64 {
            switch self {
            case .passwordReset: 3600
            case .emailSignIn: 6 * 3600
            case .verifyEmail, .verifyAndChangeEmail, .recoverEmail: 3 * 24 * 3600
            }
        }
    }

    var code: String
    var kind: Kind
    /// The address the action concerns (the account's email when the code was made).
    var email: String
    /// The new address of a `VERIFY_AND_CHANGE_EMAIL` code.
    var newEmail: String?
    /// The account, for codes made for one.
    var localId: String?
    /// The action link as sent.
    var link: String
    var continueUrl: String?
    /// Seconds since 1970 after which the code is refused; `nil` never expires (development).
    var expiresAt: Int64?
}
