import Synchronization

/// Production's limits on abuse (auth spec §11.1): sign-ups per IP address per hour, and a
/// temporary lock on an account after repeated wrong passwords. Development has none, as the
/// emulator. Counts live in memory: a restart forgets them.
final class AbuseProtection: Sendable {
    /// New accounts one IP address may create per hour (Firebase: 100).
    let signUpsPerHour: Int
    /// Wrong passwords in a row that lock an account.
    static let failuresBeforeLock = 5
    /// How long a locked account refuses password sign-in, in seconds.
    static let lockSeconds: Int64 = 15 * 60

    private struct State {
        /// Per IP address: the hour (since 1970) counted, and the sign-ups in it.
        var signUps: [String: (hour: Int64, count: Int)] = [:]
        /// Per account: wrong passwords in a row, and until when it is locked.
        var failures: [String: (count: Int, lockedUntil: Int64)] = [:]
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
        let admitted = state.withLock { state in
            var entry = state.signUps[address] ?? (now / 3600, 0)
            if entry.hour != now / 3600 { entry = (now / 3600, 0) }
            guard entry.count < signUpsPerHour else { return false }
            entry.count += 1
            state.signUps[address] = entry
            if state.signUps.count > 100_000 { state.signUps = state.signUps.filter { $0.value.hour == now / 3600 } }
            return true
        }
        if !admitted { throw Self.tooManySignUps }
    }

    /// Refuses a password sign-in to a locked account.
    func checkNotLocked(_ localId: String, now: Int64) throws(AuthError) {
        if let entry = state.withLock({ $0.failures[localId] }), entry.lockedUntil > now { throw Self.locked }
    }

    /// Records a wrong password; the last allowed one locks the account.
    func recordFailure(_ localId: String, now: Int64) {
        state.withLock { state in
            var entry = state.failures[localId] ?? (0, 0)
            entry.count += 1
            if entry.count >= Self.failuresBeforeLock { entry = (0, now + Self.lockSeconds) }
            state.failures[localId] = entry
        }
    }

    /// A successful sign-in or a password reset clears the account's failures and lock.
    func clear(_ localId: String) {
        _ = state.withLock { $0.failures.removeValue(forKey: localId) }
    }
}
