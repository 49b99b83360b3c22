import Foundation

/// The ids of the sign-in providers, as Firebase names them, for ``OAuthProvider``'s
/// credentials.
public struct AuthProviderID: Equatable, Sendable {
    public let rawValue: String

    private init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static var apple: Self { Self(rawValue: "apple.com") }
    public static var email: Self { Self(rawValue: "password") }
    public static var facebook: Self { Self(rawValue: "facebook.com") }
    public static var gameCenter: Self { Self(rawValue: "gc.apple.com") }
    public static var gitHub: Self { Self(rawValue: "github.com") }
    public static var google: Self { Self(rawValue: "google.com") }
    public static var phone: Self { Self(rawValue: "phone") }

    /// Any other provider: `microsoft.com`, `oidc.<name>`, `saml.<name>`, …
    public static func custom(_ value: String) -> Self {
        Self(rawValue: value)
    }
}

/// Credentials of any OAuth or OpenID Connect provider (`apple.com`, `github.com`, `oidc.*`, …).
public enum OAuthProvider {
    /// A credential of the provider's ID token (and access token).
    public static func credential(providerID: AuthProviderID, idToken: String, accessToken: String? = nil) -> OAuthCredential {
        OAuthCredential(provider: providerID.rawValue, idToken: idToken, accessToken: accessToken)
    }

    /// A credential of the provider's access token.
    public static func credential(providerID: AuthProviderID, accessToken: String) -> OAuthCredential {
        OAuthCredential(provider: providerID.rawValue, idToken: nil, accessToken: accessToken)
    }

    /// A credential of an ID token issued for the hash of `rawNonce` (Sign in with Apple, and
    /// OpenID Connect providers that take a nonce).
    public static func credential(providerID: AuthProviderID, idToken: String, rawNonce: String, accessToken: String? = nil)
        -> OAuthCredential
    {
        OAuthCredential(provider: providerID.rawValue, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce)
    }

    /// A Sign in with Apple credential, with the name Apple gave at the first sign-in.
    public static func appleCredential(withIDToken idToken: String, rawNonce: String?, fullName: PersonNameComponents?)
        -> OAuthCredential
    {
        OAuthCredential(provider: AuthProviderID.apple.rawValue, idToken: idToken, accessToken: nil, rawNonce: rawNonce, fullName: fullName)
    }

    public static func credential(withProviderID providerID: String, idToken: String, accessToken: String? = nil)
        -> OAuthCredential
    {
        OAuthCredential(provider: providerID, idToken: idToken, accessToken: accessToken)
    }

    public static func credential(withProviderID providerID: String, accessToken: String) -> OAuthCredential {
        OAuthCredential(provider: providerID, idToken: nil, accessToken: accessToken)
    }
}

/// An OAuth or OpenID Connect provider's tokens: made by ``OAuthProvider``, and given back by an
/// identity-provider sign-in as ``AuthDataResult/credential`` (to call the provider's own APIs).
public final class OAuthCredential: AuthCredential, @unchecked Sendable {
    /// The provider's OpenID Connect ID token.
    public let idToken: String?
    /// The provider's OAuth access token.
    public let accessToken: String?
    /// The OAuth 1 token secret (Twitter), when the provider gave one.
    public let secret: String?

    init(
        provider: String, idToken: String?, accessToken: String?, secret: String? = nil, rawNonce: String? = nil,
        fullName: PersonNameComponents? = nil
    ) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.secret = secret
        super.init(
            provider: provider,
            kind: .identityProvider(
                IdentityProviderTokens(idToken: idToken, accessToken: accessToken, rawNonce: rawNonce, fullName: fullName)))
    }

    /// The provider's tokens in a `signInWithIdp` answer (`oauthIdToken`, `oauthAccessToken`,
    /// `oauthTokenSecret`), if it has any.
    convenience init?(answer: [String: Any]) {
        guard let provider = answer["providerId"] as? String else { return nil }
        let idToken = answer["oauthIdToken"] as? String
        let accessToken = answer["oauthAccessToken"] as? String
        guard idToken != nil || accessToken != nil else { return nil }
        self.init(provider: provider, idToken: idToken, accessToken: accessToken, secret: answer["oauthTokenSecret"] as? String)
    }
}
