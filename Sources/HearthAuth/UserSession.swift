import Foundation

/// A signed-in user's profile and tokens: what a ``User`` shows and what is kept on disk.
struct UserSession: Codable, Sendable, Equatable {
    var uid: String
    var email: String?
    var displayName: String?
    var photoURL: URL?
    var phoneNumber: String?
    var isEmailVerified = false
    /// The providers linked to the account (`password`, `google.com`, …); none for an anonymous one.
    var providers: [ProviderInfo] = []
    var idToken: String
    var refreshToken: String
    var expirationDate: Date
    var metadata = UserMetadata(creationDate: nil, lastSignInDate: nil)
    /// Whether the account was made by an anonymous sign-in (absent in files of older versions).
    var signedInAnonymously: Bool?
    /// The `host:port` of the server (emulator) that issued the tokens; `nil` for Google's.
    var issuer: String?

    /// An anonymous account until a provider, an email or a phone number is linked to it.
    var isAnonymous: Bool { signedInAnonymously == true && providers.isEmpty && email == nil && phoneNumber == nil }

    /// A session from a sign-in answer (`idToken`, `refreshToken`, `expiresIn`, and `localId`,
    /// which `signInWithCustomToken` leaves out: then the token's `user_id` claim).
    init?(signIn answer: [String: Any]) {
        guard let idToken = answer["idToken"] as? String, let refreshToken = answer["refreshToken"] as? String,
            let uid = answer["localId"] as? String ?? AuthTokenResult(token: idToken)?.claims["user_id"] as? String
        else { return nil }
        self.uid = uid
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.email = answer["email"] as? String
        expirationDate = Self.expiration(answer["expiresIn"])
    }

    /// Takes the tokens of a refresh answer (spec auth-api §2.12: the new ID token is
    /// `access_token`).
    mutating func applyRefresh(_ answer: [String: Any]) -> Bool {
        guard let token = answer["access_token"] as? String ?? answer["id_token"] as? String else { return false }
        idToken = token
        if let refresh = answer["refresh_token"] as? String { refreshToken = refresh }
        expirationDate = Self.expiration(answer["expires_in"])
        return true
    }

    /// Takes the profile of an `accounts:lookup` user record.
    mutating func applyProfile(_ record: [String: Any]) {
        email = record["email"] as? String
        displayName = record["displayName"] as? String
        photoURL = (record["photoUrl"] as? String).flatMap(URL.init(string:))
        phoneNumber = record["phoneNumber"] as? String
        isEmailVerified = record["emailVerified"] as? Bool ?? false
        providers = (record["providerUserInfo"] as? [[String: Any]] ?? []).compactMap(ProviderInfo.init(record:))
        func date(_ key: String) -> Date? {
            (record[key] as? String).flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) }
        }
        metadata = UserMetadata(creationDate: date("createdAt"), lastSignInDate: date("lastLoginAt"))
    }

    /// Takes the tokens of an answer that issues new ones (`accounts:update` with
    /// `returnSecureToken`, a re-authentication).
    mutating func applyTokens(_ answer: [String: Any]) {
        if let token = answer["idToken"] as? String { idToken = token }
        if let refresh = answer["refreshToken"] as? String { refreshToken = refresh }
        if answer["idToken"] != nil { expirationDate = Self.expiration(answer["expiresIn"]) }
    }

    /// `expiresIn` seconds from now (a string in the API; 3600 when missing).
    private static func expiration(_ value: Any?) -> Date {
        let seconds = (value as? String).flatMap(Double.init) ?? (value as? NSNumber)?.doubleValue ?? 3600
        return Date().addingTimeInterval(seconds)
    }
}

/// One provider linked to an account (`providerData`), under Firebase's `UserInfo` protocol.
public struct ProviderInfo: UserInfo, Codable, Sendable, Equatable {
    public let providerID: String
    /// The user's id at the provider.
    public let uid: String
    public let displayName: String?
    public let photoURL: URL?
    public let email: String?
    public let phoneNumber: String?

    /// An entry of a user record's `providerUserInfo`.
    init?(record: [String: Any]) {
        guard let providerID = record["providerId"] as? String else { return nil }
        self.providerID = providerID
        uid = record["rawId"] as? String ?? record["federatedId"] as? String ?? ""
        displayName = record["displayName"] as? String
        photoURL = (record["photoUrl"] as? String).flatMap(URL.init(string:))
        email = record["email"] as? String
        phoneNumber = record["phoneNumber"] as? String
    }
}

/// What a user is to one provider, as Firebase's `UserInfo` protocol describes it.
public protocol UserInfo {
    var providerID: String { get }
    var uid: String { get }
    var displayName: String? { get }
    var photoURL: URL? { get }
    var email: String? { get }
    var phoneNumber: String? { get }
}
