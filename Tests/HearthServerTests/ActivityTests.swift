import HearthCore
import HearthEdge
import Testing

/// The requests feed and the denial tally behind the console's requests and traffic views.
@Suite struct ActivityTests {
    @Test func aFeedNobodyFollowsRecordsNothingAndTracesNothing() async {
        let feed = RequestFeed()
        #expect(!feed.isFollowed)
        let sawTrace = await feed.recording(
            product: "database", transport: "http", method: "GET", path: "/a.json",
            { RequestTrace.current != nil }, status: { _ in ("200", false) })
        #expect(!sawTrace)
    }

    @Test func followersGetEachRecordWithWhatTheProductsNoted() async throws {
        let feed = RequestFeed()
        var records = feed.follow().makeAsyncIterator()
        #expect(feed.isFollowed)
        await RequestTrace.$isFromConsole.withValue(true) {
            await feed.recording(
                product: "storage", transport: "http", method: "PUT", path: "/v0/b/x/o",
                {
                    RequestTrace.current?.noteCaller(.client(auth: .object([JSONMember(key: "uid", value: .string("ada"))])))
                    RequestTrace.current?.noteDenial(.string("why"))
                }, status: { _ in ("403", true) })
        }
        let next: RequestRecord? = await records.next()
        let record = try #require(next)
        #expect(record.product == "storage" && record.method == "PUT" && record.status == "403" && record.failed)
        #expect(record.trace.user == "ada" && record.trace.denial == .string("why") && record.fromConsole)
    }

    @Test func aDroppedFollowerStopsTheRecording() async throws {
        let feed = RequestFeed()
        do {
            let stream = feed.follow()
            _ = stream
        }
        // The stream's termination runs when its last reference goes.
        for _ in 0..<100 where feed.isFollowed { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!feed.isFollowed)
    }

    @Test func theDenialTallyKeepsABoundedNumberOfPaths() {
        let tally = TrafficMetrics().denials
        for index in 0..<(DenialTally.pathLimit + 10) { tally.count(product: "database", path: "ns:/p\(index)") }
        tally.count(product: "database", path: "ns:/p0")
        let top = tally.top(DenialTally.pathLimit + 10)
        #expect(top.count == DenialTally.pathLimit + 1)
        #expect(top.first?.path == "other" && top.first?.count == 10)
        #expect(top.contains { $0.path == "ns:/p0" && $0.count == 2 })
    }
}

/// The feed's budget: every request up to the rate, then only failures, the rest counted.
@Suite struct FeedBudgetTests {
    @Test func pastItsRateTheFeedPublishesOnlyFailuresAndCountsTheRest() async {
        let feed = RequestFeed(recordsPerSecond: 2, failedPerSecond: 1)
        var records = feed.follow().makeAsyncIterator()
        for failed in [false, false, false, false, true, true, false] {
            await feed.recording(
                product: "database", transport: "http", method: "GET", path: "/", { failed },
                status: { ($0 ? "401" : "200", $0) })
        }
        var published: [(String, Int)] = []
        for _ in 0..<3 {
            guard let record = await records.next() else { break }
            published.append((record.status, record.leftOutBefore))
        }
        // Two within the rate, then the first failure after two successes left out; the second
        // failure and the last success are left out (they may arrive in a new second: then the
        // second failure is published too, which this test does not wait for).
        #expect(published.map(\.0) == ["200", "200", "401"])
        #expect(published.map(\.1) == [0, 0, 2])
    }
}
