import Foundation

/// An account to import with ``AdminAuth/importUsers(_:hash:)``: its uid, profile, and the
/// password hash another system made.
public struct UserImportRecord: Sendable {
    public var uid: String
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var passwordHash: Data?
    public var passwordSalt: Data?
    /// Custom claims, as JSON text (`{"admin":true}`).
    public var customClaims: String?
    public var disabled: Bool?

    public init(
        uid: String, email: String? = nil, emailVerified: Bool? = nil, displayName: String? = nil, passwordHash: Data? = nil,
        passwordSalt: Data? = nil, customClaims: String? = nil, disabled: Bool? = nil
    ) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.passwordHash = passwordHash
        self.passwordSalt = passwordSalt
        self.customClaims = customClaims
        self.disabled = disabled
    }

    var json: [String: Any] {
        var body: [String: Any] = ["localId": uid]
        if let email { body["email"] = email }
        if let emailVerified { body["emailVerified"] = emailVerified }
        if let displayName { body["displayName"] = displayName }
        if let passwordHash { body["passwordHash"] = JWT.base64URL(passwordHash) }
        if let passwordSalt { body["salt"] = JWT.base64URL(passwordSalt) }
        if let customClaims { body["customAttributes"] = customClaims }
        if let disabled { body["disabled"] = disabled }
        return body
    }
}

/// How the imported password hashes were made (spec auth-api §9.2).
public enum UserImportHash: Sendable {
    /// HMAC of the password then the salt, with `key`.
    case hmacSHA256(key: Data)
    case hmacSHA512(key: Data)
    /// The digest of the salt then the password, applied `rounds` times.
    case sha256(rounds: Int)
    case sha512(rounds: Int)
    case pbkdf2SHA256(rounds: Int)
    /// Whole `$2a$…` strings as the hashes.
    case bcrypt
    /// Firebase's own scrypt, with the parameters the project's console shows.
    case firebaseScrypt(key: Data, saltSeparator: Data, rounds: Int, memoryCost: Int)

    var json: [String: Any] {
        switch self {
        case .hmacSHA256(let key): ["hashAlgorithm": "HMAC_SHA256", "signerKey": JWT.base64URL(key)]
        case .hmacSHA512(let key): ["hashAlgorithm": "HMAC_SHA512", "signerKey": JWT.base64URL(key)]
        case .sha256(let rounds): ["hashAlgorithm": "SHA256", "rounds": rounds]
        case .sha512(let rounds): ["hashAlgorithm": "SHA512", "rounds": rounds]
        case .pbkdf2SHA256(let rounds): ["hashAlgorithm": "PBKDF2_SHA256", "rounds": rounds]
        case .bcrypt: ["hashAlgorithm": "BCRYPT"]
        case .firebaseScrypt(let key, let separator, let rounds, let memoryCost):
            [
                "hashAlgorithm": "SCRYPT", "signerKey": JWT.base64URL(key), "saltSeparator": JWT.base64URL(separator),
                "rounds": rounds, "memoryCost": memoryCost,
            ]
        }
    }
}

/// What an import did: how many accounts were stored, and why the others were not.
public struct UserImportResult: Sendable {
    public let successCount: Int
    public let failureCount: Int
    /// The index in the input and the reason of each account not imported.
    public let errors: [(index: Int, reason: String)]
}

extension AdminAuth {
    /// Imports up to 1000 accounts at once, with password hashes made by `hash`.
    public func importUsers(_ users: [UserImportRecord], hash: UserImportHash? = nil) async throws -> UserImportResult {
        var body: [String: Any] = hash?.json ?? [:]
        body["users"] = users.map(\.json)
        let answer = try await client.auth("/accounts:batchCreate", body)
        let errors = (answer["error"] as? [[String: Any]] ?? []).map { entry in
            ((entry["index"] as? NSNumber)?.intValue ?? -1, entry["message"] as? String ?? "")
        }
        return UserImportResult(successCount: users.count - errors.count, failureCount: errors.count, errors: errors)
    }
}
