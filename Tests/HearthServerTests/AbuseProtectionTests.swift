import Testing

@testable import HearthAuthServer
@testable import HearthServer

/// Production's rate limits, with times given rather than read from the clock.
@Suite struct AbuseProtectionTests {
    @Test func signUpsPerAddressAreLimitedWithinEachHour() async throws {
        let limits = AbuseProtection(signUpsPerHour: 2)
        let hour: Int64 = 1_800_000_000 / 3600 * 3600
        try await limits.admitSignUp(from: "10.0.0.1", now: hour)
        try await limits.admitSignUp(from: "10.0.0.1", now: hour + 10)
        await #expect(throws: AbuseProtection.tooManySignUps) { try await limits.admitSignUp(from: "10.0.0.1", now: hour + 20) }
        try await limits.admitSignUp(from: "10.0.0.2", now: hour + 20)
        try await limits.admitSignUp(from: "10.0.0.1", now: hour + 3600)
    }

    @Test func repeatedWrongPasswordsFromAnAddressLockTheAccountThereForAWhile() async throws {
        let limits = AbuseProtection(signUpsPerHour: 100)
        let now: Int64 = 1_800_000_000
        for _ in 0..<AbuseProtection.failuresBeforeLock {
            try await limits.beginPasswordAttempt("ada", from: "10.0.0.9", now: now)
            await limits.finishPasswordAttempt("ada", from: "10.0.0.9", succeeded: false, now: now)
        }
        await #expect(throws: AbuseProtection.locked) { try await limits.beginPasswordAttempt("ada", from: "10.0.0.9", now: now + 1) }
        // The account's owner, elsewhere, is not locked out; the lock ends by itself, or with a reset.
        try await limits.beginPasswordAttempt("ada", from: "10.0.0.1", now: now + 1)
        await limits.finishPasswordAttempt("ada", from: "10.0.0.1", succeeded: true, now: now + 1)
        try await limits.beginPasswordAttempt("ada", from: "10.0.0.9", now: now + AbuseProtection.lockSeconds + 1)
        await limits.clear("ada")
        try await limits.beginPasswordAttempt("ada", from: "10.0.0.9", now: now + 2)
    }

    @Test func parallelGuessesCountBeforeTheirHashesAreChecked() async throws {
        let limits = AbuseProtection(signUpsPerHour: 100)
        let now: Int64 = 1_800_000_000
        for _ in 0..<AbuseProtection.failuresBeforeLock { try await limits.beginPasswordAttempt("bob", from: "10.0.0.9", now: now) }
        await #expect(throws: AbuseProtection.locked) { try await limits.beginPasswordAttempt("bob", from: "10.0.0.9", now: now) }
        await limits.finishPasswordAttempt("bob", from: "10.0.0.9", succeeded: true, now: now)
        try await limits.beginPasswordAttempt("bob", from: "10.0.0.9", now: now)
    }

    @Test func failuresAreForgottenOnceALockWouldHaveEnded() async throws {
        let limits = AbuseProtection(signUpsPerHour: 100)
        let now: Int64 = 1_800_000_000
        for _ in 1..<AbuseProtection.failuresBeforeLock {
            try await limits.beginPasswordAttempt("cy@example.com", from: "10.0.0.9", now: now)
            await limits.finishPasswordAttempt("cy@example.com", from: "10.0.0.9", succeeded: false, now: now)
        }
        let later = now + AbuseProtection.lockSeconds
        try await limits.beginPasswordAttempt("cy@example.com", from: "10.0.0.9", now: later)
        await limits.finishPasswordAttempt("cy@example.com", from: "10.0.0.9", succeeded: false, now: later)
        try await limits.beginPasswordAttempt("cy@example.com", from: "10.0.0.9", now: later)
    }
}
