import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// The bound on what waits for a client: it refuses a backlog behind the message the client is
/// receiving, never one big message.
@Suite struct BacklogTests {
    /// Whether `backlog` admits each of `sizes`, in order.
    private func admit(_ sizes: [Int], to backlog: inout Backlog) -> [Bool] {
        sizes.map { backlog.admit($0) }
    }

    @Test func aMessageLargerThanTheLimitGoesOutWithTheResponseBehindIt() {
        var backlog = Backlog(limit: 100)
        #expect(admit([250, 60, 40, 1], to: &backlog) == [true, true, true, false])
    }

    @Test func sendingTheOldestMakesRoomForWhatFollowedIt() {
        var backlog = Backlog(limit: 100)
        #expect(admit([10, 70, 30, 1], to: &backlog) == [true, true, true, false])
        // The 70 is now the one being received: 30 waits behind it.
        backlog.releaseOldest()
        #expect(admit([70, 1], to: &backlog) == [true, false])
        for _ in 0..<3 { backlog.releaseOldest() }
        #expect(admit([500], to: &backlog) == [true])
        backlog.clear()
        #expect(admit([100, 100, 1], to: &backlog) == [true, true, false])
    }
}
