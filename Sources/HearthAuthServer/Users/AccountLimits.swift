/// The bounds of what a caller may store on an account: Firebase's limits where they are known
/// (auth spec §6.4, the Admin SDKs, the password-policy page), Hearth's own otherwise (listed in
/// docs/compatibility.md). Every stored field is bounded, so that no account, and no ID token
/// (which copies the profile and the custom claims), grows with what a client sends.
///
/// "Characters" are UTF-16 code units, as Firebase's servers and JavaScript SDK count them; unlike
/// Swift's characters they also bound the size in bytes (at most 3 bytes of UTF-8 each).
enum AccountLimits {
    /// A uid: 1 to 128 bytes (the Admin SDKs: at most 128 characters).
    static let localIdBytes = 128
    /// An email: under 256 bytes (production: RFC 822, under 256 characters).
    static let emailBytes = 255
    static let displayNameCharacters = 256
    static let photoUrlCharacters = 2048
    /// The longest password a password policy may allow.
    static let passwordCharacters = 4096
    /// E.164: at most 15 digits after the `+`.
    static let phoneDigits = 15
    /// Custom claims, as JSON text (the Admin SDKs measure UTF-8 bytes).
    static let customClaimsBytes = 1000
    static let providerIdCharacters = 128
    /// A provider's user id (OpenID Connect's `sub` is at most 255 ASCII characters).
    static let rawIdCharacters = 256
    static let screenNameCharacters = 256
    /// An imported hash, salt or hash key, in bytes.
    static let importedHashBytes = 1024

    static let passwordTooLong = AuthError.code(
        "PASSWORD_DOES_NOT_MEET_REQUIREMENTS",
        "Missing password requirements: [Password may contain at most \(passwordCharacters) characters]")

    /// `name`, else `INVALID_DISPLAY_NAME` when longer than 256 characters.
    static func displayName(_ name: String?) throws(AuthError) -> String? {
        try bounded(name, displayNameCharacters, else: .code("INVALID_DISPLAY_NAME"))
    }

    /// `url`, else `INVALID_PHOTO_URL` when longer than 2,048 characters.
    static func photoUrl(_ url: String?) throws(AuthError) -> String? {
        try bounded(url, photoUrlCharacters, else: .code("INVALID_PHOTO_URL"))
    }

    /// Refuses a provider entry (`linkProviderUserInfo`, an imported `providerUserInfo`, a
    /// federated identity) with a field out of bounds.
    static func check(_ provider: LinkedProvider) throws(AuthError) {
        _ = try bounded(provider.providerId, providerIdCharacters, else: .code("INVALID_PROVIDER_ID"))
        _ = try bounded(provider.rawId, rawIdCharacters, else: .code("INVALID_RAW_ID"))
        if let email = provider.email, !AuthFormats.isValidEmail(email) { throw .code("INVALID_EMAIL") }
        _ = try displayName(provider.displayName)
        _ = try photoUrl(provider.photoUrl)
        _ = try bounded(provider.screenName, screenNameCharacters, else: .code("INVALID_SCREEN_NAME"))
    }

    private static func bounded(_ text: String?, _ limit: Int, else error: AuthError) throws(AuthError) -> String? {
        if let text, text.utf16.count > limit { throw error }
        return text
    }
}
