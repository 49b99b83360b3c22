import HearthSupport
import SQLiteNIO
import Synchronization

/// Commits the events reported at about the same time in one SQLite transaction, one disk sync
/// for all of them (group commit): while one transaction commits, the events that arrive wait,
/// and the next transaction takes them all. Each event is decided in its turn inside the
/// transaction (first report or not, after an impression or not, within its campaign's limits
/// or not), so events of one batch see each other as if committed one by one; none is answered
/// before its transaction committed. A transaction that fails answers each of its events with
/// the failure, and takes back from the ledger what it had counted.
final class EventCommitter: Sendable {
    /// One event reported.
    struct Event: Sendable {
        var type: AdEventType
        var token: AdToken
        var campaign: Campaign?
        var ledger: DeliveryLedger
        var now: Int64
    }

    private struct Waiting: Sendable {
        var event: Event
        var answer: CheckedContinuation<AdsStore.EventOutcome, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var isCommitting = false
    }

    private let connection: SQLiteConnection
    private let writes: MutationQueue
    private let state = Mutex(State())

    /// The most events one transaction takes.
    static let batchLimit = 1024

    init(connection: SQLiteConnection, writes: MutationQueue) {
        self.connection = connection
        self.writes = writes
    }

    /// What became of `event`, once the transaction that decided it committed.
    func record(_ event: Event) async throws -> AdsStore.EventOutcome {
        try await withCheckedThrowingContinuation { answer in
            let starts = state.withLock { state in
                state.waiting.append(Waiting(event: event, answer: answer))
                defer { state.isCommitting = true }
                return !state.isCommitting
            }
            if starts { Task { await self.commitWhileWaiting() } }
        }
    }

    /// Commits batches until no event waits.
    private func commitWhileWaiting() async {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                let batch = Array(state.waiting.prefix(Self.batchLimit))
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.isCommitting = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            await commit(batch)
        }
    }

    private func commit(_ batch: [Waiting]) async {
        let outcomes: [AdsStore.EventOutcome]
        do {
            outcomes = try await writes.run { [connection] in
                _ = try await connection.query("BEGIN IMMEDIATE")
                var decided: [AdsStore.EventOutcome] = []
                do {
                    for waiting in batch { decided.append(try await Self.decide(waiting.event, on: connection)) }
                    _ = try await connection.query("COMMIT")
                    return decided
                } catch {
                    _ = try? await connection.query("ROLLBACK")
                    for (waiting, outcome) in zip(batch, decided) where outcome == .counted {
                        let event = waiting.event
                        event.ledger.uncounted(event.type, of: event.token, capped: event.campaign?.frequencyCap != nil, now: event.now)
                    }
                    throw error
                }
            }
        } catch {
            for waiting in batch { waiting.answer.resume(throwing: error) }
            return
        }
        for (waiting, outcome) in zip(batch, outcomes) { waiting.answer.resume(returning: outcome) }
    }

    /// Decides `event` and, when it counts, inserts it and tells the ledger.
    private static func decide(_ event: Event, on connection: SQLiteConnection) async throws -> AdsStore.EventOutcome {
        let (type, token) = (event.type, event.token)
        if type != .impression {
            let impression = try await connection.query(
                "SELECT 1 FROM events WHERE token = ?1 AND type = 'impression'", [.text(token.id)])
            if impression.isEmpty { return .withoutImpression }
        }
        let seen = try await connection.query(
            "SELECT 1 FROM events WHERE token = ?1 AND type = ?2",
            [
                .text(token.id), .text(type.rawValue),
            ])
        if !seen.isEmpty { return .duplicate }
        guard event.ledger.admits(type, of: token, campaign: event.campaign, now: event.now) else { return .pastLimit }
        let capped = event.campaign?.frequencyCap != nil
        _ = try await connection.query(
            """
            INSERT INTO events (token, type, time, hour, campaign, creative, unit, viewer)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """,
            [
                .text(token.id), .text(type.rawValue), .integer(Int(event.now)), .integer(Int(AdsStore.hour(of: event.now))),
                .text(token.campaignID), .text(token.creativeID), .text(token.adUnitID),
                capped ? token.viewerKey.map { .text($0) } ?? .null : .null,
            ])
        event.ledger.counted(type, of: token, capped: capped, now: event.now)
        return .counted
    }
}
