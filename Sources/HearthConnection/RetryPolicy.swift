/// When to try connecting again (protocol §3.8, §17.10.6, as the Apple SDK does it).
///
/// The first attempt, and the first after a success, goes at once. After that the base delay
/// starts at ``minimumDelay`` seconds and grows by ``multiplier`` per attempt up to
/// ``maximumDelay``; each wait is the base delay scaled by `1 − jitter + jitter · random`.
/// A success is a connection that stayed up for ``successfulConnectionDuration``, a redirect,
/// or the app going online again.
struct RetryPolicy: Sendable {
    static let minimumDelay = 1.0
    static let maximumDelay = 30.0
    static let multiplier = 1.3
    static let jitter = 0.7
    /// How long a connection must last to count as a success, in seconds.
    static let successfulConnectionDuration = 30.0

    private var lastWasSuccess = true
    /// The base delay of the last failed attempt, in seconds; 0 after a success.
    private var currentDelay = 0.0

    /// The wait before the next attempt, in seconds. `random` is uniform in `0..<1`.
    mutating func nextDelay(random: Double = .random(in: 0..<1)) -> Double {
        guard !lastWasSuccess else {
            lastWasSuccess = false
            return 0
        }
        currentDelay = currentDelay == 0 ? Self.minimumDelay : min(currentDelay * Self.multiplier, Self.maximumDelay)
        return currentDelay * (1 - Self.jitter + Self.jitter * random)
    }

    /// The next attempt goes at once, and backoff starts over after it.
    mutating func signalSuccess() {
        lastWasSuccess = true
        currentDelay = 0
    }
}
