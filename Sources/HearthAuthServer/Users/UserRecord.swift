import HearthPasswords

/// One account as Hearth stores it; rendered to clients as the `UserInfo` JSON of auth spec §6.4
/// by ``UserInfoJSON``.
///
/// Emails are stored lower-cased. Times are milliseconds since 1970 except `validSince`
/// (seconds), as the API reports them.
struct UserRecord: Codable, Sendable, Equatable {
    var localId: String
    var email: String?
    var emailVerified: Bool?
    var displayName: String?
    var photoUrl: String?
    var phoneNumber: String?
    var password: StoredPassword?
    /// When the password last changed (ms).
    var passwordUpdatedAt: Int64?
    /// Tokens issued before this second are revoked.
    var validSince: Int64?
    var disabled: Bool = false
    var createdAt: Int64
    var lastLoginAt: Int64?
    var lastRefreshAt: Int64?
    /// The custom claims, as the JSON object text the admin set.
    var customAttributes: String?
    /// Whether the account has signed in with a custom token.
    var customAuth: Bool = false
    /// Whether the account has signed in with an email link.
    var emailLinkSignin: Bool = false
    /// The first email of the account, restored by a `RECOVER_EMAIL` code.
    var initialEmail: String?
    /// Linked identity providers other than `password` and `phone` (which are derived).
    var providers: [LinkedProvider] = []
    var tenantId: String?
    /// Made by an anonymous sign-up (it stays anonymous until a credential is linked to it).
    var anonymous: Bool?

    init(localId: String, createdAt: Int64) {
        self.localId = localId
        self.createdAt = createdAt
    }

    /// The sign-in methods `createAuthUri` reports for the account's email.
    var signInMethods: [String] {
        var methods: [String] = []
        if password != nil { methods.append("password") }
        if emailLinkSignin { methods.append("emailLink") }
        return methods
    }

    /// Whether the `password` provider entry exists: an email with a password or email-link sign-in.
    var hasPasswordProvider: Bool {
        email != nil && (password != nil || emailLinkSignin)
    }

    /// Removes the email and everything tied to it.
    mutating func removeEmail() {
        email = nil
        emailVerified = nil
        emailLinkSignin = false
        password = nil
    }
}

/// A password hash with what is needed to check it: Hearth's own Firebase-scrypt hash (no
/// algorithm: the project's parameters) or an imported hash awaiting re-hashing on sign-in.
struct StoredPassword: Codable, Sendable, Equatable {
    var hash: [UInt8]
    var salt: [UInt8]
    /// The algorithm of an imported hash; `nil` for the project's own Firebase scrypt.
    var importedWith: PasswordHashAlgorithm?
}

/// An identity provider linked to an account (`providerUserInfo`, auth spec §6.3).
struct LinkedProvider: Codable, Sendable, Equatable {
    var providerId: String
    var rawId: String
    var email: String?
    var displayName: String?
    var photoUrl: String?
    var screenName: String?
}
