import HearthCore

/// Who makes a Storage request, as rules see them.
enum StorageCaller: Codable, Sendable, Equatable {
    /// Skips rules: `owner` in development, a service account or database secret, and every
    /// caller of the GCS API.
    case admin
    /// No credentials: `request.auth` is null.
    case signedOut
    /// A verified ID token: `request.auth` is `{uid, token}` with the token's claims (as JSON).
    case user(uid: String, claims: String)
}
