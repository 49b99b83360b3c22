import Synchronization

/// Production's limits on abuse (auth spec §11.1): sign-ups per IP address per hour, action
/// emails per recipient per hour, and a
/// temporary lock on an email's password sign-in from an address after repeated wrong passwords
/// from it. Development has none, as the emulator. The counts live where ``AbuseCounters`` keeps
/// them: in memory for one node (a restart forgets them), in PostgreSQL for a cluster (every node
/// counts against the same limits).
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
    /// Action emails one address may receive per hour.
    static let emailsPerHour = 10
    private let counters: any AbuseCounters

    init(signUpsPerHour: Int, counters: any AbuseCounters = MemoryAbuseCounters()) {
        self.signUpsPerHour = signUpsPerHour
        self.counters = counters
    }

    static let tooManySignUps = AuthError.code("TOO_MANY_ATTEMPTS_TRY_LATER", "Too many sign-ups from this address. Try again later.")
    static let tooManyEmails = AuthError.code("TOO_MANY_ATTEMPTS_TRY_LATER", "Too many emails to this address. Try again later.")
    static let locked = AuthError.code(
        "TOO_MANY_ATTEMPTS_TRY_LATER",
        """
        Access to this account has been temporarily disabled due to many failed login attempts. You can immediately \
        restore it by resetting your password or you can try again later.
        """)

    /// Counts a sign-up from `address`; refuses it past the hourly limit.
    func admitSignUp(from address: String, now: Int64) async throws(AuthError) {
        guard try await counted({ try await $0.admit(.signUp, key: address, limit: signUpsPerHour, hour: now / 3600) }) else {
            throw Self.tooManySignUps
        }
    }

    /// Counts an action email to `recipient`; refuses it past the hourly limit.
    func admitEmail(to recipient: String, now: Int64) async throws(AuthError) {
        guard try await counted({ try await $0.admit(.email, key: recipient, limit: Self.emailsPerHour, hour: now / 3600) }) else {
            throw Self.tooManyEmails
        }
    }

    /// Takes a place for one password attempt on `email` from `address`; refused while the
    /// email is locked there, or when as many attempts as would lock it are already counted.
    /// Failures older than ``lockSeconds`` are forgotten.
    func beginPasswordAttempt(_ email: String, from address: String, now: Int64) async throws(AuthError) {
        guard try await counted({ try await $0.beginAttempt(email: email, address: address, now: now) }) else { throw Self.locked }
    }

    /// Ends an attempt begun with ``beginPasswordAttempt(_:from:now:)``: a success forgets the
    /// email's failures from the address; the failure that reaches the limit locks it there.
    /// A count that cannot be kept (PostgreSQL out of reach) is dropped: the attempt's place
    /// is given back when its reservation lapses.
    func finishPasswordAttempt(_ email: String, from address: String, succeeded: Bool, now: Int64) async {
        try? await counters.finishAttempt(email: email, address: address, succeeded: succeeded, now: now)
    }

    /// A password reset lifts every lock of the account's email. The reset is done by then: a
    /// lock that cannot be lifted (PostgreSQL out of reach) stays until it ends by itself.
    func clear(_ email: String) async {
        try? await counters.clear(email: email)
    }

    /// What `count` answers; a store that cannot count refuses the request, as a store that
    /// cannot read the accounts does.
    private func counted(_ count: (any AbuseCounters) async throws -> Bool) async throws(AuthError) -> Bool {
        do {
            return try await count(counters)
        } catch {
            throw AuthError.unavailable
        }
    }
}
