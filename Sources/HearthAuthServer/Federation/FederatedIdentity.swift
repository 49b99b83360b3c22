import HearthCore

/// Who an identity provider says the user is (auth spec §2.4): what `signInWithIdp` links and
/// answers.
struct FederatedIdentity: Sendable, Equatable {
    var providerId: String
    /// The user's id at the provider (Google's `sub`, Facebook's `id`).
    var rawId: String
    var email: String?
    /// Whether the provider vouches for the email (Google does; Facebook does not).
    var emailVerified = false
    var displayName: String?
    var photoUrl: String?
    var screenName: String?
    var firstName: String?
    var lastName: String?
    /// The provider's profile, sent back as `rawUserInfo`.
    var rawUserInfo: JSONValue = .object([])
    /// Credential fields the sign-in got from the provider itself (the `id_token` and
    /// `access_token` an OIDC code flow redeemed), answered as if the client had sent them.
    var obtainedCredential: [String: String] = [:]

    /// `federatedId` of the response: Google's is its account URL, others' the raw id.
    var federatedId: String {
        providerId == "google.com" ? "https://accounts.google.com/\(rawId)" : rawId
    }

    /// The entry stored on the account.
    var linkedProvider: LinkedProvider {
        LinkedProvider(
            providerId: providerId, rawId: rawId, email: email, displayName: displayName, photoUrl: photoUrl,
            screenName: screenName)
    }

    /// The identity in standard OpenID claims (`sub`, `email`, `email_verified`, `name`, `picture`,
    /// `given_name`, `family_name`, `screen_name`), the form both a verified Google token and the
    /// emulator's fake tokens take.
    static func fromClaims(_ claims: JSONValue, providerId: String) -> FederatedIdentity? {
        guard case .string(let subject)? = claims["sub"] else { return nil }
        func text(_ key: String) -> String? {
            if case .string(let value)? = claims[key] { return value }
            return nil
        }
        var verified = false
        switch claims["email_verified"] {
        case .bool(let flag)?: verified = flag
        case .string(let flag)?: verified = flag == "true"
        default: break
        }
        var identity = FederatedIdentity(
            providerId: providerId, rawId: subject, email: text("email")?.lowercased(), emailVerified: verified,
            displayName: text("name"), photoUrl: text("picture"), screenName: text("screen_name"),
            firstName: text("given_name"), lastName: text("family_name"))
        identity.rawUserInfo =
            providerId == "google.com"
            ? .members([
                (
                    "granted_scopes",
                    .string(
                        "openid https://www.googleapis.com/auth/userinfo.profile"
                            + (identity.email != nil ? " https://www.googleapis.com/auth/userinfo.email" : ""))
                ),
                ("id", .string(subject)), ("name", identity.displayName.map(JSONValue.string)),
                ("given_name", identity.firstName.map(JSONValue.string)),
                ("family_name", identity.lastName.map(JSONValue.string)),
                ("verified_email", .bool(verified)), ("locale", .string("en")),
                ("email", identity.email.map(JSONValue.string)), ("picture", identity.photoUrl.map(JSONValue.string)),
            ])
            : claims
        return identity
    }
}
