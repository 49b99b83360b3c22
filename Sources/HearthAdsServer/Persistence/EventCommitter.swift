import HearthCore
import HearthSupport
import SQLiteNIO
import Synchronization

/// Commits the events reported at about the same time in one SQLite transaction, one disk sync
/// for all of them (group commit): while one transaction commits, the events that arrive wait,
/// and the next transaction takes them all. Each event is decided in its turn inside the
/// transaction (first report or not, after an impression or not, within its campaign's limits
/// or not), so events of one batch see each other as if committed one by one; none is answered
/// before its transaction committed. Each is stamped with the clock's time as it is decided,
/// never earlier than the one before, so that the ledger counts in time order. An event past
/// its campaign's limits is kept too, as not counted, so that its retries stay uncounted. A
/// transaction that fails answers each of its events with the failure, and takes back from the
/// ledger what it had counted; one whose rollback fails leaves the store refusing writes.
final class EventCommitter: Sendable {
    /// One event reported.
    struct Event: Sendable {
        var type: AdEventType
        var token: AdToken
        var campaign: Campaign?
        var ledger: DeliveryLedger
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
    private let health: StoreHealth
    private let clock: AdsClock
    private let state = Mutex(State())
    /// The time the last event was stamped with.
    private let lastStamp = Mutex<Int64>(0)

    /// The most events one transaction takes.
    static let batchLimit = 1024

    init(connection: SQLiteConnection, writes: MutationQueue, health: StoreHealth, clock: AdsClock) {
        self.connection = connection
        self.writes = writes
        self.health = health
        self.clock = clock
    }

    /// Now, and never before the time the last event was stamped with.
    private func stamp() -> Int64 {
        lastStamp.withLock { last in
            last = max(last, clock.now())
            return last
        }
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
            outcomes = try await writes.run { [connection, health] in
                try health.check()
                _ = try await connection.query("BEGIN IMMEDIATE")
                var decided: [(outcome: AdsStore.EventOutcome, at: Int64)] = []
                do {
                    var known = try await Self.reported(of: batch.map(\.event.token.id), on: connection)
                    var kept: [JSONValue] = []
                    for waiting in batch {
                        let now = stamp()
                        let (outcome, row) = Self.decide(waiting.event, at: now, known: &known)
                        decided.append((outcome, now))
                        if let row { kept.append(row) }
                    }
                    if !kept.isEmpty { try await Self.insert(kept, on: connection) }
                    _ = try await connection.query("COMMIT")
                    return decided.map(\.outcome)
                } catch {
                    do {
                        _ = try await connection.query("ROLLBACK")
                    } catch let rollback {
                        health.fail("a transaction of ads events could not be rolled back: \(rollback)")
                    }
                    for (waiting, decision) in zip(batch, decided) where decision.outcome == .counted {
                        let event = waiting.event
                        event.ledger.uncounted(
                            event.type, of: event.token, capped: event.campaign?.frequencyCap != nil, now: decision.at)
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

    /// The (token, type) pairs of `tokens` reported before, as `token type` keys.
    private static func reported(of tokens: [String], on connection: SQLiteConnection) async throws -> Set<String> {
        let rows = try await connection.query(
            "SELECT token, type FROM events WHERE token IN (SELECT value FROM json_each(?1))",
            [.text(JSONWriter.string(.array(tokens.map { .string($0) })))])
        return Set(rows.map { "\($0.column("token")?.string ?? "") \($0.column("type")?.string ?? "")" })
    }

    /// Decides `event`, stamped `now`, given the (token, type) pairs `known` to be reported
    /// before it (to which it adds its own): kept unless it was reported before or is a viewable
    /// impression or a click of an ad without an impression, counted when the ledger admits it
    /// (the ledger then learns of it). Answers the row to insert, if kept.
    private static func decide(_ event: Event, at now: Int64, known: inout Set<String>) -> (AdsStore.EventOutcome, JSONValue?) {
        let (type, token) = (event.type, event.token)
        if type != .impression, !known.contains("\(token.id) \(AdEventType.impression.rawValue)") {
            return (.withoutImpression, nil)
        }
        guard known.insert("\(token.id) \(type.rawValue)").inserted else { return (.duplicate, nil) }
        let counts = event.ledger.admits(type, of: token, campaign: event.campaign, now: now)
        let capped = event.campaign?.frequencyCap != nil
        let row = JSONValue.array([
            .string(token.id), .string(type.rawValue), .number(.int(now)), .number(.int(AdsStore.hour(of: now))),
            .string(token.campaignID), .string(token.creativeID), .string(token.adUnitID),
            capped ? token.viewerKey.map { .string($0) } ?? .null : .null, .number(.int(counts ? 1 : 0)),
        ])
        guard counts else { return (.pastLimit, row) }
        event.ledger.counted(type, of: token, capped: capped, now: now)
        return (.counted, row)
    }

    /// Inserts the events `rows` decided to keep, in one statement (the triggers count them).
    private static func insert(_ rows: [JSONValue], on connection: SQLiteConnection) async throws {
        _ = try await connection.query(
            """
            INSERT INTO events (token, type, time, hour, campaign, creative, unit, viewer, counted)
            SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7, value->>8
            FROM json_each(?1)
            """, [.text(JSONWriter.string(.array(rows)))])
    }
}

/// Whether the ads store can still be written: once a transaction could not be rolled back, no
/// write may run (it would join that transaction, and be answered without being durable).
final class StoreHealth: Sendable {
    private let failure = Mutex<String?>(nil)

    func fail(_ reason: String) {
        failure.withLock { $0 = $0 ?? reason }
    }

    var unavailability: String? { failure.withLock { $0 } }

    func check() throws {
        if let reason = unavailability { throw AdsStoreError.unavailable(reason) }
    }
}
