import Testing

@testable import HearthConnection

@Suite struct RetryPolicyTests {
    @Test func firstAttemptGoesAtOnceThenBacksOff() {
        var policy = RetryPolicy()
        #expect(policy.nextDelay(random: 0.5) == 0)
        #expect(policy.nextDelay(random: 1) == 1)
        #expect(abs(policy.nextDelay(random: 1) - 1.3) < 1e-9)
        #expect(abs(policy.nextDelay(random: 0) - 1.69 * 0.3) < 1e-9)
    }

    @Test func delayIsCappedAtThirtySeconds() {
        var policy = RetryPolicy()
        for _ in 0..<40 { _ = policy.nextDelay(random: 1) }
        #expect(policy.nextDelay(random: 1) == 30)
    }

    @Test func successResetsTheBackoff() {
        var policy = RetryPolicy()
        for _ in 0..<5 { _ = policy.nextDelay(random: 1) }
        policy.signalSuccess()
        #expect(policy.nextDelay(random: 1) == 0)
        #expect(policy.nextDelay(random: 1) == 1)
    }
}
