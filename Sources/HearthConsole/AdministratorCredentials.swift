/// The credential the console presents to the products for an administrator: Authentication
/// mints it (a short-lived admin access token in production, `owner` in development), and it is
/// reused until a few minutes before it expires, so that a console request costs no signature.
package actor AdministratorCredentials {
    /// Mints a credential for an administrator's email; `nil` when it cannot.
    package typealias Mint = @Sendable (_ email: String) async -> (credential: String, lifetime: Duration)?

    private let mint: Mint
    private var cached: [String: (credential: String, renewAt: ContinuousClock.Instant)] = [:]

    package init(mint: @escaping Mint) {
        self.mint = mint
    }

    package func credential(for email: String) async -> String? {
        let now = ContinuousClock.now
        if let entry = cached[email], now < entry.renewAt { return entry.credential }
        guard let (credential, lifetime) = await mint(email) else { return nil }
        cached[email] = (credential, now + lifetime - min(lifetime / 2, .seconds(300)))
        return credential
    }
}
