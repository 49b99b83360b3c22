import Testing

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

    @Test func repeatedWrongPasswordsLockAnAccountForAWhile() throws {
        let limits = AbuseProtection(signUpsPerHour: 100)
        let now: Int64 = 1_800_000_000
        for _ in 1..<AbuseProtection.failuresBeforeLock {
            limits.recordFailure("ada", now: now)
            try limits.checkNotLocked("ada", now: now)
        }
        limits.recordFailure("ada", now: now)
        #expect(throws: AbuseProtection.locked) { try limits.checkNotLocked("ada", now: now + 1) }
        try limits.checkNotLocked("bob", now: now + 1)
        try limits.checkNotLocked("ada", now: now + AbuseProtection.lockSeconds + 1)
        limits.recordFailure("ada", now: now)
        limits.clear("ada")
        for _ in 1..<AbuseProtection.failuresBeforeLock { limits.recordFailure("ada", now: now) }
        try limits.checkNotLocked("ada", now: now)
    }
}
