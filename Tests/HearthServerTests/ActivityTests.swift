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

    @Test func followersGetEachRecordWithWhatTheProductsNoted() async {
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
        let record = try? #require(await records.next())
        #expect(record?.product == "storage" && record?.method == "PUT" && record?.status == "403" && record?.failed == true)
        #expect(record?.trace.user == "ada" && record?.trace.denial == .string("why") && record?.fromConsole == true)
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
