import Testing

@testable import HearthAuthServer
@testable import HearthServer

/// Production's rate limits, with times given rather than read from the clock.
@Suite struct AbuseProtectionTests {
    @Test func signUpsPerAddressAreLimitedWithinEachHour() throws {
        let limits = AbuseProtection(signUpsPerHour: 2)
        let hour: Int64 = 1_800_000_000 / 3600 * 3600
        try limits.admitSignUp(from: "10.0.0.1", now: hour)
        try limits.admitSignUp(from: "10.0.0.1", now: hour + 10)
        #expect(throws: AbuseProtection.tooManySignUps) { try limits.admitSignUp(from: "10.0.0.1", now: hour + 20) }
        try limits.admitSignUp(from: "10.0.0.2", now: hour + 20)
        try limits.admitSignUp(from: "10.0.0.1", now: hour + 3600)
    }

    @Test func repeatedWrongPasswordsFromAnAddressLockTheAccountThereForAWhile() throws {
        let limits = AbuseProtection(signUpsPerHour: 100)
        let now: Int64 = 1_800_000_000
        for _ in 0..<AbuseProtection.failuresBeforeLock {
            try limits.beginPasswordAttempt("ada", from: "10.0.0.9", now: now)
            limits.finishPasswordAttempt("ada", from: "10.0.0.9", succeeded: false, now: now)
        }
        #expect(throws: AbuseProtection.locked) { try limits.beginPasswordAttempt("ada", from: "10.0.0.9", now: now + 1) }
        // The account's owner, elsewhere, is not locked out; the lock ends by itself, or with a reset.
        try limits.beginPasswordAttempt("ada", from: "10.0.0.1", now: now + 1)
        limits.finishPasswordAttempt("ada", from: "10.0.0.1", succeeded: true, now: now + 1)
        try limits.beginPasswordAttempt("ada", from: "10.0.0.9", now: now + AbuseProtection.lockSeconds + 1)
        limits.clear("ada")
        try limits.beginPasswordAttempt("ada", from: "10.0.0.9", now: now + 2)
    }

    @Test func parallelGuessesCountBeforeTheirHashesAreChecked() throws {
        let limits = AbuseProtection(signUpsPerHour: 100)
        let now: Int64 = 1_800_000_000
        for _ in 0..<AbuseProtection.failuresBeforeLock { try limits.beginPasswordAttempt("bob", from: "10.0.0.9", now: now) }
        #expect(throws: AbuseProtection.locked) { try limits.beginPasswordAttempt("bob", from: "10.0.0.9", now: now) }
        limits.finishPasswordAttempt("bob", from: "10.0.0.9", succeeded: true, now: now)
        try limits.beginPasswordAttempt("bob", from: "10.0.0.9", now: now)
    }

    @Test func failuresAreForgottenOnceALockWouldHaveEnded() throws {
        let limits = AbuseProtection(signUpsPerHour: 100)
        let now: Int64 = 1_800_000_000
        for _ in 1..<AbuseProtection.failuresBeforeLock {
            try limits.beginPasswordAttempt("cy@example.com", from: "10.0.0.9", now: now)
            limits.finishPasswordAttempt("cy@example.com", from: "10.0.0.9", succeeded: false, now: now)
        }
        let later = now + AbuseProtection.lockSeconds
        try limits.beginPasswordAttempt("cy@example.com", from: "10.0.0.9", now: later)
        limits.finishPasswordAttempt("cy@example.com", from: "10.0.0.9", succeeded: false, now: later)
        try limits.beginPasswordAttempt("cy@example.com", from: "10.0.0.9", now: later)
    }
}
