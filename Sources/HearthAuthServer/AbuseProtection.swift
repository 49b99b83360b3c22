import Synchronization

/// Production's limits on abuse (auth spec §11.1): sign-ups per IP address per hour, action
/// emails per recipient per hour, and a
/// temporary lock on an email's password sign-in from an address after repeated wrong passwords
/// from it. Development has none, as the emulator. Counts live in memory: a restart forgets them.
///
/// A password attempt takes its place before the (slow) hash is checked, so parallel guesses
/// count as much as sequential ones; the lock is per email and address, so nobody can lock
/// others out of their own account. Attempts count per email whether or not an account has it,
/// so that under email-enumeration protection an unknown email locks as a known one does.
final class AbuseProtection: Sendable {
    /// New accounts one IP address may create per hour (Firebase: 100).
    let signUpsPerHour: Int
    /// Wrong passwords in a row, from one address, that lock an email's password sign-in there.
    static let failuresBeforeLock = 5
    /// How long a lock lasts, and how long failures are remembered, in seconds.
    static let lockSeconds: Int64 = 15 * 60

    private struct Attempts {
        var failures = 0
        var inFlight = 0
        var lockedUntil: Int64 = 0
        var lastFailure: Int64 = 0

        /// Whether there is nothing left to remember at `now`.
        func isSpent(now: Int64) -> Bool {
            inFlight == 0 && lockedUntil <= now && (failures == 0 || lastFailure + AbuseProtection.lockSeconds <= now)
        }
    }

    /// Counts events per key within the current hour.
    private struct HourlyCounts {
        private var counts: [String: (hour: Int64, count: Int)] = [:]

        /// Counts one event for `key`; `false` (and nothing counted) past `limit` this hour.
        mutating func admit(_ key: String, limit: Int, now: Int64) -> Bool {
            var entry = counts[key] ?? (now / 3600, 0)
            if entry.hour != now / 3600 { entry = (now / 3600, 0) }
            guard entry.count < limit else { return false }
            entry.count += 1
            counts[key] = entry
            if counts.count > 100_000 { counts = counts.filter { $0.value.hour == now / 3600 } }
            return true
        }
    }

    private struct State {
        /// Sign-ups per IP address.
        var signUps = HourlyCounts()
        /// Action emails per recipient.
        var emails = HourlyCounts()
        /// Per email, per address: password attempts.
        var attempts: [String: [String: Attempts]] = [:]
        /// How many emails ``attempts`` may hold before spent entries are dropped (it doubles
        /// with what remains, so dropping costs little per attempt).
        var attemptsPruneThreshold = 10_000

        /// Drops spent attempts when there are many: guesses at ever new emails must not grow the
        /// table without end.
        mutating func pruneAttempts(now: Int64) {
            guard attempts.count > attemptsPruneThreshold else { return }
            attempts = attempts.compactMapValues { byAddress in
                let live = byAddress.filter { !$0.value.isSpent(now: now) }
                return live.isEmpty ? nil : live
            }
            attemptsPruneThreshold = max(10_000, 2 * attempts.count)
        }
    }

    private let state = Mutex(State())

    init(signUpsPerHour: Int) {
        self.signUpsPerHour = signUpsPerHour
    }

    static let tooManySignUps = AuthError.code("TOO_MANY_ATTEMPTS_TRY_LATER", "Too many sign-ups from this address. Try again later.")
    static let locked = AuthError.code(
        "TOO_MANY_ATTEMPTS_TRY_LATER",
        """
        Access to this account has been temporarily disabled due to many failed login attempts. You can immediately \
        restore it by resetting your password or you can try again later.
        """)

    /// Counts a sign-up from `address`; refuses it past the hourly limit.
    func admitSignUp(from address: String, now: Int64) throws(AuthError) {
        if !state.withLock({ $0.signUps.admit(address, limit: signUpsPerHour, now: now) }) { throw Self.tooManySignUps }
    }

    /// Action emails one address may receive per hour.
    static let emailsPerHour = 10

    static let tooManyEmails = AuthError.code("TOO_MANY_ATTEMPTS_TRY_LATER", "Too many emails to this address. Try again later.")

    /// Counts an action email to `recipient`; refuses it past the hourly limit.
    func admitEmail(to recipient: String, now: Int64) throws(AuthError) {
        if !state.withLock({ $0.emails.admit(recipient, limit: Self.emailsPerHour, now: now) }) { throw Self.tooManyEmails }
    }

    /// Takes a place for one password attempt on `email` from `address`; refused while the
    /// email is locked there, or when as many attempts as would lock it are already counted.
    /// Failures older than ``lockSeconds`` are forgotten.
    func beginPasswordAttempt(_ email: String, from address: String, now: Int64) throws(AuthError) {
        let admitted = state.withLock { state in
            state.pruneAttempts(now: now)
            var attempts = state.attempts[email]?[address] ?? Attempts()
            if attempts.lastFailure + Self.lockSeconds <= now { attempts.failures = 0 }
            guard attempts.lockedUntil <= now, attempts.failures + attempts.inFlight < Self.failuresBeforeLock else { return false }
            attempts.inFlight += 1
            state.attempts[email, default: [:]][address] = attempts
            return true
        }
        if !admitted { throw Self.locked }
    }

    /// Ends an attempt begun with ``beginPasswordAttempt(_:from:now:)``: a success forgets the
    /// email's failures from the address; the failure that reaches the limit locks it there.
    func finishPasswordAttempt(_ email: String, from address: String, succeeded: Bool, now: Int64) {
        state.withLock { state in
            guard var attempts = state.attempts[email]?[address] else { return }
            attempts.inFlight -= 1
            if succeeded {
                attempts.failures = 0
            } else {
                attempts.failures += 1
                attempts.lastFailure = now
                if attempts.failures >= Self.failuresBeforeLock {
                    attempts = Attempts(inFlight: attempts.inFlight, lockedUntil: now + Self.lockSeconds)
                }
            }
            if attempts.isSpent(now: now) {
                state.attempts[email]?[address] = nil
                if state.attempts[email]?.isEmpty == true { state.attempts[email] = nil }
            } else {
                state.attempts[email]?[address] = attempts
            }
        }
    }

    /// A password reset lifts every lock of the account's email.
    func clear(_ email: String) {
        _ = state.withLock { $0.attempts.removeValue(forKey: email) }
    }
}
