/// Where production checks federated credentials (auth spec §7), and for which apps.
public struct IdentityProviderSettings: Sendable {
    /// OAuth client ids whose Google ID tokens are accepted (the token's `aud`); none: Google
    /// sign-in is off.
    public var googleClientIDs: Set<String>
    /// Google's signing keys (JWKS), cached for as long as the response's `Cache-Control` allows.
    public var googleKeysURL: String
    /// The Facebook app whose user access tokens are accepted; `nil`: Facebook sign-in is off.
    public var facebookAppID: String?
    public var facebookAppSecret: String?
    /// The Graph API, which checks tokens (`debug_token`) and gives the profile (`me`).
    public var facebookGraphURL: String
    /// Bundle and service ids whose Apple ID tokens are accepted (the token's `aud`); none: Sign
    /// in with Apple is off.
    public var appleClientIDs: Set<String>
    /// Apple's signing keys (JWKS).
    public var appleKeysURL: String

    public init(
        googleClientIDs: Set<String> = [], googleKeysURL: String = "https://www.googleapis.com/oauth2/v3/certs",
        facebookAppID: String? = nil, facebookAppSecret: String? = nil, facebookGraphURL: String = "https://graph.facebook.com",
        appleClientIDs: Set<String> = [], appleKeysURL: String = "https://appleid.apple.com/auth/keys"
    ) {
        self.googleClientIDs = googleClientIDs
        self.googleKeysURL = googleKeysURL
        self.facebookAppID = facebookAppID
        self.facebookAppSecret = facebookAppSecret
        self.facebookGraphURL = facebookGraphURL
        self.appleClientIDs = appleClientIDs
        self.appleKeysURL = appleKeysURL
    }
}
