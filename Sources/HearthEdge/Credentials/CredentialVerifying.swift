import HearthCore

/// Why a credential was refused; transports answer `invalid_token` / `expired_token`, REST
/// `Could not parse auth token.` / `Auth token is expired.`.
package enum CredentialFailure: Error, Equatable, Sendable {
    case invalid
    case expired
}

/// Turns the credential a request presents into the ``Caller`` it establishes, with the one
/// admin decision every product and transport shares. The edge owns this protocol and
/// Authentication implements it, so that products meet only here and never import each other.
package protocol CredentialVerifying: Sendable {
    /// The caller `credential` establishes and when it stops being valid (seconds since 1970).
    /// An admin credential acts as `authvar` when one is given, and as nobody with `noauth`.
    func caller(credential: String, authvar: JSONValue?, noauth: Bool, now: Int64) async throws(CredentialFailure) -> (
        Caller, expires: Int64
    )

    /// Waits until `credential` stops being valid (it expires or its user's tokens are revoked)
    /// and returns why; `nil` when the task is cancelled first or the credential never lapses.
    func lapse(of credential: String, authvar: JSONValue?, noauth: Bool) async -> CredentialFailure?

    /// Whether `credential` grants administrative access, the same decision ``caller(credential:authvar:noauth:now:)``
    /// makes before it reads a user's token.
    func isAdmin(_ credential: String, now: Int64) async -> Bool
}
