import Foundation

/// A credential to sign in, link or re-authenticate with, made by one of the providers
/// (``EmailAuthProvider``, ``GoogleAuthProvider``, ``FacebookAuthProvider``, ``OAuthProvider``,
/// ``PhoneAuthProvider``).
public class AuthCredential: @unchecked Sendable {
    /// The provider's id: `password`, `google.com`, `facebook.com`, …
    public let provider: String
    let kind: Kind

    enum Kind {
        case emailPassword(email: String, password: String)
        /// An email and the sign-in link mailed to it.
        case emailLink(email: String, link: String)
        /// A phone verification ID and the code sent with it.
        case phone(verificationID: String, code: String)
        /// An identity provider's tokens, sent as `signInWithIdp`'s `postBody`.
        case identityProvider(idToken: String?, accessToken: String?)
    }

    init(provider: String, kind: Kind) {
        self.provider = provider
        self.kind = kind
    }

    /// `postBody` for `accounts:signInWithIdp`, as the SDKs build it.
    var postBody: String? {
        guard case .identityProvider(let idToken, let accessToken) = kind else { return nil }
        var items = [URLQueryItem]()
        if let idToken, !idToken.isEmpty { items.append(URLQueryItem(name: "id_token", value: idToken)) }
        if let accessToken, !accessToken.isEmpty { items.append(URLQueryItem(name: "access_token", value: accessToken)) }
        items.append(URLQueryItem(name: "providerId", value: provider))
        var components = URLComponents()
        components.queryItems = items
        // `+` is not escaped by URLComponents; a form body must not carry it raw.
        return components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
    }
}

/// The id of the email/password provider.
public let EmailAuthProviderID = "password"
/// The id of Google sign-in.
public let GoogleAuthProviderID = "google.com"
/// The id of Facebook login.
public let FacebookAuthProviderID = "facebook.com"

/// Email credentials: an email with its password, or with a sign-in link mailed to it.
public enum EmailAuthProvider {
    public static let id = EmailAuthProviderID

    public static func credential(withEmail email: String, password: String) -> AuthCredential {
        AuthCredential(provider: EmailAuthProviderID, kind: .emailPassword(email: email, password: password))
    }

    /// An email and the sign-in link sent to it (``Auth/sendSignInLink(toEmail:actionCodeSettings:)``).
    public static func credential(withEmail email: String, link: String) -> AuthCredential {
        AuthCredential(provider: EmailAuthProviderID, kind: .emailLink(email: email, link: link))
    }
}

/// Google sign-in credentials: the ID token (and access token) Google Sign-In gave the app.
public enum GoogleAuthProvider {
    public static let id = GoogleAuthProviderID

    public static func credential(withIDToken idToken: String, accessToken: String) -> AuthCredential {
        AuthCredential(provider: GoogleAuthProviderID, kind: .identityProvider(idToken: idToken, accessToken: accessToken))
    }
}

/// Facebook login credentials: the access token Facebook Login gave the app.
public enum FacebookAuthProvider {
    public static let id = FacebookAuthProviderID

    public static func credential(withAccessToken accessToken: String) -> AuthCredential {
        AuthCredential(provider: FacebookAuthProviderID, kind: .identityProvider(idToken: nil, accessToken: accessToken))
    }
}

/// Credentials of any OAuth or OpenID Connect provider (`apple.com`, `github.com`, `oidc.*`, …).
public enum OAuthProvider {
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

    init(provider: String, idToken: String?, accessToken: String?, secret: String? = nil) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.secret = secret
        super.init(provider: provider, kind: .identityProvider(idToken: idToken, accessToken: accessToken))
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
