import Testing

@testable import HearthAdsServer

@Suite struct PacingTests {
    @Test func aGoalsShareGrowsWithTheTimeGoneAndOneMore() {
        let day = DeliveryLedger.dayMilliseconds
        #expect(DeliveryLedger.paced(200, from: 0, to: day, at: 0) == 1)
        #expect(DeliveryLedger.paced(200, from: 0, to: day, at: day / 2) == 101)
        #expect(DeliveryLedger.paced(200, from: 0, to: day, at: day - 1) == 200)
        #expect(DeliveryLedger.paced(200, from: 0, to: day, at: 2 * day) == 200)
        #expect(DeliveryLedger.paced(200, from: day, to: 2 * day, at: 0) == 1)
    }

    @Test func onlyADevelopmentClockCanBeSet() throws {
        let development = AdsClock(isSettable: true)
        try development.set(to: 1_000)
        #expect(abs(development.now() - 1_000) < 1_000)
        #expect(throws: AdsError.noSuchEndpoint) { try AdsClock(isSettable: false).set(to: 1_000) }
    }
}
