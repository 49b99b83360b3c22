import Synchronization

/// What is counted against a limit per hour (``AbuseCounters/admit(_:key:limit:hour:)``).
enum AbuseKind: String, Sendable {
    /// Sign-ups, per IP address.
    case signUp = "sign-up"
    /// Action emails, per recipient.
    case email
}

/// Where ``AbuseProtection`` keeps its counts: in memory (``MemoryAbuseCounters``), or in
/// PostgreSQL for a cluster (``PostgresAbuseCounters``).
protocol AbuseCounters: Sendable {
    /// Counts one event of `kind` for `key` in hour `hour` (seconds since 1970 / 3600); `false`,
    /// and nothing counted, when `limit` are counted already.
    func admit(_ kind: AbuseKind, key: String, limit: Int, hour: Int64) async throws -> Bool

    /// Takes a place for one password attempt on `email` from `address` at `now`; `false` while
    /// the email is locked there, or when as many attempts as would lock it are counted
    /// (failures older than ``AbuseProtection/lockSeconds`` forgotten, attempts in flight
    /// included).
    func beginAttempt(email: String, address: String, now: Int64) async throws -> Bool

    /// Ends an attempt: a success forgets the failures; the failure that reaches
    /// ``AbuseProtection/failuresBeforeLock`` locks the email there for
    /// ``AbuseProtection/lockSeconds``.
    func finishAttempt(email: String, address: String, succeeded: Bool, now: Int64) async throws

    /// Forgets every attempt on `email` (a password reset lifts its locks).
    func clear(email: String) async throws
}

/// The counts of one node, in memory: a restart forgets them.
final class MemoryAbuseCounters: AbuseCounters {
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

    private struct State {
        /// Per kind and key: the hour counted, and the count.
        var counts: [AbuseKind: [String: (hour: Int64, count: Int)]] = [:]
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

    func admit(_ kind: AbuseKind, key: String, limit: Int, hour: Int64) -> Bool {
        state.withLock { state in
            var counts = state.counts[kind] ?? [:]
            defer { state.counts[kind] = counts }
            var entry = counts[key] ?? (hour, 0)
            if entry.hour != hour { entry = (hour, 0) }
            guard entry.count < limit else { return false }
            entry.count += 1
            counts[key] = entry
            if counts.count > 100_000 { counts = counts.filter { $0.value.hour == hour } }
            return true
        }
    }

    func beginAttempt(email: String, address: String, now: Int64) -> Bool {
        state.withLock { state in
            state.pruneAttempts(now: now)
            var attempts = state.attempts[email]?[address] ?? Attempts()
            if attempts.lastFailure + AbuseProtection.lockSeconds <= now { attempts.failures = 0 }
            guard attempts.lockedUntil <= now, attempts.failures + attempts.inFlight < AbuseProtection.failuresBeforeLock else {
                return false
            }
            attempts.inFlight += 1
            state.attempts[email, default: [:]][address] = attempts
            return true
        }
    }

    func finishAttempt(email: String, address: String, succeeded: Bool, now: Int64) {
        state.withLock { state in
            guard var attempts = state.attempts[email]?[address] else { return }
            attempts.inFlight -= 1
            if succeeded {
                attempts.failures = 0
            } else {
                attempts.failures += 1
                attempts.lastFailure = now
                if attempts.failures >= AbuseProtection.failuresBeforeLock {
                    attempts = Attempts(inFlight: attempts.inFlight, lockedUntil: now + AbuseProtection.lockSeconds)
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

    func clear(email: String) {
        _ = state.withLock { $0.attempts.removeValue(forKey: email) }
    }
}
