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
        /// What an identity provider gave the app, sent as `signInWithIdp`'s `postBody`.
        case identityProvider(IdentityProviderTokens)
    }

    init(provider: String, kind: Kind) {
        self.provider = provider
        self.kind = kind
    }

    /// `postBody` for `accounts:signInWithIdp`, as the SDKs build it: the tokens, Sign in with
    /// Apple's nonce, and the user's name as `user` JSON when the provider gave one.
    var postBody: String? {
        guard case .identityProvider(let tokens) = kind else { return nil }
        var items = [URLQueryItem]()
        if let idToken = tokens.idToken, !idToken.isEmpty { items.append(URLQueryItem(name: "id_token", value: idToken)) }
        if let nonce = tokens.rawNonce { items.append(URLQueryItem(name: "nonce", value: nonce)) }
        if let accessToken = tokens.accessToken, !accessToken.isEmpty {
            items.append(URLQueryItem(name: "access_token", value: accessToken))
        }
        items.append(URLQueryItem(name: "providerId", value: provider))
        if let name = tokens.nameJSON { items.append(URLQueryItem(name: "user", value: name)) }
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
        AuthCredential(
            provider: GoogleAuthProviderID, kind: .identityProvider(IdentityProviderTokens(idToken: idToken, accessToken: accessToken)))
    }
}

/// Facebook login credentials: the access token Facebook Login gave the app.
public enum FacebookAuthProvider {
    public static let id = FacebookAuthProviderID

    public static func credential(withAccessToken accessToken: String) -> AuthCredential {
        AuthCredential(
            provider: FacebookAuthProviderID, kind: .identityProvider(IdentityProviderTokens(idToken: nil, accessToken: accessToken)))
    }
}

/// What an identity provider gave the app: its tokens, and for Sign in with Apple the raw nonce
/// and the user's name (which Apple gives only at the first sign-in).
struct IdentityProviderTokens {
    var idToken: String?
    var accessToken: String?
    var rawNonce: String? = nil
    var fullName: PersonNameComponents? = nil

    /// The name as `{"name":{"firstName":…,"lastName":…}}`, when there is one.
    var nameJSON: String? {
        var name: [String: String] = [:]
        if let given = fullName?.givenName { name["firstName"] = given }
        if let family = fullName?.familyName { name["lastName"] = family }
        guard !name.isEmpty, let data = try? JSONSerialization.data(withJSONObject: ["name": name], options: [.sortedKeys]) else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }
}
