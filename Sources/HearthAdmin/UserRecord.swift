import Foundation

/// An account as the admin sees it.
public struct UserRecord: Sendable {
    public let uid: String
    public let email: String?
    public let emailVerified: Bool
    public let displayName: String?
    public let photoURL: String?
    public let phoneNumber: String?
    public let disabled: Bool
    /// The custom claims, as JSON text (`{"admin":true}`).
    public let customClaims: String?
    /// Ids of the linked providers (`password`, `google.com`, …).
    public let providerIDs: [String]
    /// ID tokens issued before this time are revoked.
    public let tokensValidAfterTime: Date?
    public let creationTime: Date?

    init(_ record: [String: Any]) {
        func date(_ text: Any?, scale: Double) -> Date? {
            (text as? String).flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / scale) }
        }
        uid = record["localId"] as? String ?? ""
        email = record["email"] as? String
        emailVerified = record["emailVerified"] as? Bool ?? false
        displayName = record["displayName"] as? String
        photoURL = record["photoUrl"] as? String
        phoneNumber = record["phoneNumber"] as? String
        disabled = record["disabled"] as? Bool ?? false
        customClaims = record["customAttributes"] as? String
        providerIDs = (record["providerUserInfo"] as? [[String: Any]] ?? []).compactMap { $0["providerId"] as? String }
        tokensValidAfterTime = date(record["validSince"], scale: 1)
        creationTime = date(record["createdAt"], scale: 1000)
    }
}

/// A page of ``AdminAuth/listUsers(maxResults:pageToken:)``.
public struct UserPage: Sendable {
    public let users: [UserRecord]
    /// `nil` on the last page.
    public let nextPageToken: String?
}

/// The fields of an account to create or change; `nil` leaves a field alone.
public struct UserProperties: Sendable {
    public var uid: String?
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var emailVerified: Bool?
    public var disabled: Bool?

    public init(
        uid: String? = nil, email: String? = nil, password: String? = nil, displayName: String? = nil, photoURL: String? = nil,
        phoneNumber: String? = nil, emailVerified: Bool? = nil, disabled: Bool? = nil
    ) {
        self.uid = uid
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.emailVerified = emailVerified
        self.disabled = disabled
    }

    private var common: [String: Any] {
        var body: [String: Any] = [:]
        let strings: [(String, String?)] = [
            ("email", email), ("password", password), ("displayName", displayName), ("photoUrl", photoURL), ("phoneNumber", phoneNumber),
        ]
        for (key, value) in strings { if let value { body[key] = value } }
        if let emailVerified { body["emailVerified"] = emailVerified }
        return body
    }

    var createBody: [String: Any] {
        var body = common
        if let uid { body["localId"] = uid }
        if let disabled { body["disabled"] = disabled }
        return body
    }

    var updateBody: [String: Any] {
        var body = common
        if let disabled { body["disableUser"] = disabled }
        return body
    }
}
