/// What a refresh token stands for: one sign-in of one user (auth spec §4.8).
///
/// ID tokens minted from it keep its sign-in provider, custom-token claims and `auth_time`.
struct RefreshSession: Codable, Sendable, Equatable {
    var localId: String
    /// `firebase.sign_in_provider` of the tokens it mints.
    var provider: String
    /// The `claims` of the custom token that started it, as JSON object text.
    var extraClaims: String?
    var projectId: String
    var tenantId: String?
    /// When the user presented a credential (seconds).
    var authTime: Int64
    /// When the session began (seconds); it is refused once `validSince` passes it.
    var issuedAt: Int64
}
