import HearthPostgres
import PostgresNIO

/// The counts of ``AbuseProtection`` in PostgreSQL, shared by every node of a cluster, so that N
/// nodes allow what one does:
/// - `hearth_auth_limits`: per kind and key, the hour counted and its count;
/// - `hearth_auth_attempts`: per email and address, the password failures, the last one's time,
///   the lock's end, and the attempts in flight with when their reservation lapses (a node that
///   died mid-attempt never gives its place back: it lapses after ``reservationSeconds``).
///
/// Each count is one statement that checks and counts at once. Spent rows are removed now and
/// then, by whichever node counts.
struct PostgresAbuseCounters: AbuseCounters {
    let database: ClusterDatabase

    /// How long an attempt in flight holds its place at most: a password check takes well under
    /// a second.
    static let reservationSeconds: Int64 = 60

    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS hearth_auth_limits (kind text NOT NULL, key text NOT NULL, hour bigint NOT NULL,
          count int NOT NULL, PRIMARY KEY (kind, key))
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_auth_attempts (email text NOT NULL, address text NOT NULL,
          failures int NOT NULL DEFAULT 0, last_failure bigint NOT NULL DEFAULT 0, locked_until bigint NOT NULL DEFAULT 0,
          in_flight int NOT NULL DEFAULT 0, in_flight_until bigint NOT NULL DEFAULT 0, PRIMARY KEY (email, address))
        """,
    ]

    func admit(_ kind: AbuseKind, key: String, limit: Int, hour: Int64) async throws -> Bool {
        guard limit > 0 else { return false }
        if Int.random(in: 0..<1000) == 0 {
            _ = try await database.query("DELETE FROM hearth_auth_limits WHERE hour < \(hour)")
        }
        let counted = try await database.query(
            """
            INSERT INTO hearth_auth_limits AS l (kind, key, hour, count) VALUES (\(kind.rawValue), \(key), \(hour), 1)
            ON CONFLICT (kind, key) DO UPDATE
              SET count = CASE WHEN l.hour < EXCLUDED.hour THEN 1 ELSE l.count + 1 END, hour = GREATEST(l.hour, EXCLUDED.hour)
              WHERE l.hour < EXCLUDED.hour OR l.count < \(Int32(clamping: limit))
            RETURNING 1
            """)
        return !counted.isEmpty
    }

    func beginAttempt(email: String, address: String, now: Int64) async throws -> Bool {
        let lock = AbuseProtection.lockSeconds
        if Int.random(in: 0..<1000) == 0 {
            _ = try await database.query(
                """
                DELETE FROM hearth_auth_attempts WHERE locked_until <= \(now) AND last_failure + \(lock) <= \(now)
                  AND in_flight_until <= \(now)
                """)
        }
        // The failures still remembered, and the attempts whose reservation holds.
        let taken = try await database.query(
            """
            INSERT INTO hearth_auth_attempts AS a (email, address, in_flight, in_flight_until)
            VALUES (\(email), \(address), 1, \(now + Self.reservationSeconds))
            ON CONFLICT (email, address) DO UPDATE SET
              failures = CASE WHEN a.last_failure + \(lock) <= \(now) THEN 0 ELSE a.failures END,
              in_flight = CASE WHEN a.in_flight_until > \(now) THEN a.in_flight ELSE 0 END + 1,
              in_flight_until = \(now + Self.reservationSeconds)
            WHERE a.locked_until <= \(now)
              AND CASE WHEN a.last_failure + \(lock) <= \(now) THEN 0 ELSE a.failures END
                + CASE WHEN a.in_flight_until > \(now) THEN a.in_flight ELSE 0 END < \(Int32(AbuseProtection.failuresBeforeLock))
            RETURNING 1
            """)
        return !taken.isEmpty
    }

    func finishAttempt(email: String, address: String, succeeded: Bool, now: Int64) async throws {
        let lock = AbuseProtection.lockSeconds
        let limit = Int32(AbuseProtection.failuresBeforeLock)
        _ = try await database.query(
            """
            UPDATE hearth_auth_attempts SET
              in_flight = GREATEST(in_flight - 1, 0),
              failures = CASE WHEN \(succeeded) OR failures + 1 >= \(limit) THEN 0 ELSE failures + 1 END,
              last_failure = CASE WHEN \(succeeded) THEN last_failure ELSE \(now) END,
              locked_until = CASE WHEN NOT \(succeeded) AND failures + 1 >= \(limit) THEN \(now + lock) ELSE locked_until END
            WHERE email = \(email) AND address = \(address)
            """)
    }

    func clear(email: String) async throws {
        _ = try await database.query("DELETE FROM hearth_auth_attempts WHERE email = \(email)")
    }
}
