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
    var providerIDs: [String] = []
    var idToken: String
    var refreshToken: String
    var expirationDate: Date
    var metadata = UserMetadata(creationDate: nil, lastSignInDate: nil)

    var isAnonymous: Bool { providerIDs.isEmpty && email == nil && phoneNumber == nil }

    /// A session from a sign-in answer (`idToken`, `refreshToken`, `expiresIn`, `localId`).
    init?(signIn answer: [String: Any]) {
        guard let uid = answer["localId"] as? String, let idToken = answer["idToken"] as? String,
            let refreshToken = answer["refreshToken"] as? String
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
        providerIDs = (record["providerUserInfo"] as? [[String: Any]] ?? []).compactMap { $0["providerId"] as? String }
        func date(_ key: String) -> Date? {
            (record[key] as? String).flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) }
        }
        metadata = UserMetadata(creationDate: date("createdAt"), lastSignInDate: date("lastLoginAt"))
    }

    /// `expiresIn` seconds from now (a string in the API; 3600 when missing).
    private static func expiration(_ value: Any?) -> Date {
        let seconds = (value as? String).flatMap(Double.init) ?? (value as? NSNumber)?.doubleValue ?? 3600
        return Date().addingTimeInterval(seconds)
    }
}
