import Foundation

/// What a sign-in or sign-up gives: the signed-in user, facts about the sign-in, and for an
/// identity provider, its tokens.
public final class AuthDataResult: Sendable {
    public let user: User
    public let additionalUserInfo: AdditionalUserInfo?
    /// The identity provider's tokens, for sign-ins and links with one.
    public let credential: OAuthCredential?

    init(user: User, additionalUserInfo: AdditionalUserInfo?, answer: [String: Any] = [:]) {
        self.user = user
        self.additionalUserInfo = additionalUserInfo
        credential = OAuthCredential(answer: answer)
    }
}

/// Facts about one sign-in: whether it created the account, with which provider, and for an
/// identity provider, what it says of the user.
///
/// Sendable although `profile` is a `[String: Any]`: it holds only what JSON decoding makes.
public final class AdditionalUserInfo: @unchecked Sendable {
    /// The provider signed in with; empty for anonymous and custom-token sign-ins, as in Firebase.
    public let providerID: String
    public let isNewUser: Bool
    /// The user's name at the provider (a screen name), when it has one.
    public let username: String?
    /// The provider's profile of the user (`email`, `name`, `picture`, …), for identity-provider
    /// sign-ins.
    public let profile: [String: Any]?

    /// The facts of a sign-in, with the provider's profile and screen name when `answer` (the
    /// server's answer) has them.
    init(providerID: String?, isNewUser: Bool, answer: [String: Any] = [:]) {
        self.providerID = providerID ?? ""
        self.isNewUser = isNewUser
        username = answer["screenName"] as? String
        profile = (answer["rawUserInfo"] as? String).flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// When the account was created and last signed in.
public struct UserMetadata: Sendable, Codable, Equatable {
    public let creationDate: Date?
    public let lastSignInDate: Date?
}

/// An ID token with its decoded claims (`getIDTokenResult`).
public struct AuthTokenResult {
    public let token: String
    public let expirationDate: Date
    public let authDate: Date
    public let issuedAtDate: Date
    /// `firebase.sign_in_provider`: `password`, `anonymous`, `custom`, …
    public let signInProvider: String
    public let signInSecondFactor: String?
    /// Every claim of the token, custom claims included.
    public let claims: [String: Any]

    /// The claims of `token` (a JWT), read without checking its signature, as the SDKs do.
    init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Self.base64URLDecoded(String(parts[1])),
            let claims = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any]
        else { return nil }
        func date(_ key: String) -> Date { Date(timeIntervalSince1970: (claims[key] as? NSNumber)?.doubleValue ?? 0) }
        let firebase = claims["firebase"] as? [String: Any]
        self.token = token
        self.claims = claims
        expirationDate = date("exp")
        authDate = date("auth_time")
        issuedAtDate = date("iat")
        signInProvider = firebase?["sign_in_provider"] as? String ?? ""
        signInSecondFactor = firebase?["sign_in_second_factor"] as? String
    }

    private static func base64URLDecoded(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

extension AuthTokenResult: @unchecked Sendable {}
