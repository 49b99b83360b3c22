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

    @Test func onlyADevelopmentClockCanBeSetAndOnlyForward() throws {
        let development = AdsClock(isSettable: true)
        let future: Int64 = 1_900_000_000_000
        try development.set(to: future)
        #expect(abs(development.now() - future) < 1_000)
        #expect(throws: AdsError.invalidField(field: "now", reason: "the clock only moves forward")) {
            try development.set(to: future - 60_000)
        }
        #expect(throws: AdsError.invalidField(field: "now", reason: "the clock only moves forward")) {
            try development.set(to: nil)
        }
        #expect(throws: AdsError.noSuchEndpoint) { try AdsClock(isSettable: false).set(to: future) }
    }

    @Test func reservationsLapseOldestFirstAndEndWithTheirImpression() {
        var reservations = Reservations()
        for index in 0..<3000 { reservations.add("t\(index)", at: Int64(index)) }
        reservations.remove("t2999")
        #expect(reservations.count(now: 2999, lifetime: 1000) == 999)
        #expect(reservations.count(now: 3500, lifetime: 1000) == 498)
        #expect(reservations.count(now: 10_000, lifetime: 1000) == 0)
    }
}
