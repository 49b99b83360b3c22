/// Limits wrong console passwords: after ``allowedFailures`` failed sign-ins from one address,
/// or for one email, within ``window``, further attempts by that address or for that email are
/// refused until the window that began with the first failure has passed. The password is not
/// even checked then, so a refused attempt reveals nothing and costs no hash.
package actor SignInThrottle {
    static let allowedFailures = 5
    static let window: Duration = .seconds(15 * 60)
    /// Bounds the memory an attacker cycling through addresses or emails can take.
    static let trackedKeys = 10_000

    private struct Failures {
        var count: Int
        let firstAt: ContinuousClock.Instant
    }

    private var failures: [String: Failures] = [:]

    package init() {}

    /// How long `address` or `email` must still wait, or `nil` when it may try now.
    package func wait(address: String, email: String) -> Duration? {
        let now = ContinuousClock.now
        let waits = [Self.addressKey(address), Self.emailKey(email)].compactMap { key -> Duration? in
            guard let entry = failures[key] else { return nil }
            let elapsed = now - entry.firstAt
            if elapsed >= Self.window {
                failures[key] = nil
                return nil
            }
            return entry.count >= Self.allowedFailures ? Self.window - elapsed : nil
        }
        return waits.max()
    }

    package func recordFailure(address: String, email: String) {
        let now = ContinuousClock.now
        if failures.count >= Self.trackedKeys {
            failures = failures.filter { now - $0.value.firstAt < Self.window }
        }
        for key in [Self.addressKey(address), Self.emailKey(email)] {
            if let entry = failures[key], now - entry.firstAt < Self.window {
                failures[key]?.count = entry.count + 1
            } else {
                failures[key] = Failures(count: 1, firstAt: now)
            }
        }
    }

    /// A successful sign-in clears the email's failures (not the address's).
    package func recordSuccess(email: String) {
        failures[Self.emailKey(email)] = nil
    }

    private static func addressKey(_ address: String) -> String { "address:" + address }
    private static func emailKey(_ email: String) -> String { "email:" + email.lowercased() }
}
