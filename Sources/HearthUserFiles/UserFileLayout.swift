/// What Firebase's CLI puts in a user file (auth spec §9.4, §9.5): the keys a JSON user may
/// have, the identity providers a file carries, and the 52 CSV columns.
package enum UserFileLayout {
    /// The keys of a user in a JSON file. Files name the last sign-in `lastSignedInAt`; the
    /// server calls it `lastLoginAt`.
    package static let userKeys: Set<String> = [
        "localId", "email", "emailVerified", "passwordHash", "salt", "displayName", "photoUrl", "createdAt", "lastSignedInAt",
        "providerUserInfo", "phoneNumber", "disabled", "customAttributes", "mfaInfo",
    ]

    /// The keys of a `providerUserInfo` entry, in the order exports write them.
    package static let providerKeys = ["providerId", "rawId", "email", "displayName", "photoUrl"]

    /// The identity providers a user file carries, in CSV order, each with the first of its four
    /// columns (rawId, email, displayName, photoUrl).
    package static let providers: [(id: String, column: Int)] = [
        ("google.com", 7), ("facebook.com", 11), ("twitter.com", 15), ("github.com", 19), ("apple.com", 28),
        ("microsoft.com", 32), ("gc.apple.com", 36), ("playgames.google.com", 40), ("linkedin.com", 44), ("yahoo.com", 48),
    ]

    package static let providerIDs = Set(providers.map(\.id))

    /// The columns of a CSV line that are not a provider's.
    package enum Column: Int {
        case localId = 0, email, emailVerified, passwordHash, salt, displayName, photoUrl
        case createdAt = 23, lastSignedInAt, phoneNumber, disabled, customAttributes
    }

    package static let columnCount = 52
}
