import HearthCore
import Synchronization

/// Commits the events reported at about the same time in one transaction of the store, one disk
/// sync for all of them (group commit): while one transaction commits, the events that arrive
/// wait, and the next transaction takes them all. Each event is decided in its turn inside the
/// transaction (first report or not, after an impression or not, within its campaign's limits
/// or not), so events of one batch see each other as if committed one by one; none is answered
/// before its transaction committed. Each is stamped with the clock's time as it is decided,
/// never earlier than the one before, so that the ledger counts in time order. An event past
/// its campaign's limits is kept too, as not counted, so that its retries stay uncounted. A
/// transaction that fails answers each of its events with the failure, and takes back from the
/// ledger what it had counted.
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
        var answer: CheckedContinuation<AdEventOutcome, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var isCommitting = false
    }

    private let batches: any EventBatches
    private let clock: AdsClock
    private let state = Mutex(State())
    /// The time the last event was stamped with.
    private let lastStamp = Mutex<Int64>(0)

    /// The most events one transaction takes.
    static let batchLimit = 1024

    init(batches: any EventBatches, clock: AdsClock) {
        self.batches = batches
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
    func record(_ event: Event) async throws -> AdEventOutcome {
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
        var decided: [(outcome: AdEventOutcome, at: Int64)] = []
        do {
            try await batches.commit(tokens: batch.map(\.event.token.id)) { reported in
                var known = reported
                var kept: [KeptEvent] = []
                decided = []
                for waiting in batch {
                    let now = stamp()
                    let (outcome, row) = Self.decide(waiting.event, at: now, known: &known)
                    decided.append((outcome, now))
                    if let row { kept.append(row) }
                }
                return kept
            }
        } catch {
            for (waiting, decision) in zip(batch, decided) where decision.outcome == .counted {
                let event = waiting.event
                event.ledger.uncounted(event.type, of: event.token, capped: event.campaign?.frequencyCap != nil, now: decision.at)
            }
            for waiting in batch { waiting.answer.resume(throwing: error) }
            return
        }
        for (waiting, decision) in zip(batch, decided) { waiting.answer.resume(returning: decision.outcome) }
    }

    /// Decides `event`, stamped `now`, given the (token, type) pairs `known` to be reported
    /// before it (to which it adds its own): kept unless it was reported before or is a viewable
    /// impression or a click of an ad without an impression, counted when the ledger admits it
    /// (the ledger then learns of it). Answers the row to keep, if any.
    private static func decide(_ event: Event, at now: Int64, known: inout Set<String>) -> (AdEventOutcome, KeptEvent?) {
        let (type, token) = (event.type, event.token)
        if type != .impression, !known.contains(KeptEvent.key(token: token.id, type: .impression)) {
            return (.withoutImpression, nil)
        }
        guard known.insert(KeptEvent.key(token: token.id, type: type)).inserted else { return (.duplicate, nil) }
        let counts = event.ledger.admits(type, of: token, campaign: event.campaign, now: now)
        let capped = event.campaign?.frequencyCap != nil
        let row = KeptEvent(token: token, type: type, time: now, viewer: capped ? token.viewerKey : nil, counted: counts)
        guard counts else { return (.pastLimit, row) }
        event.ledger.counted(type, of: token, capped: capped, now: now)
        return (.counted, row)
    }
}

/// How a store commits one batch of events (``EventCommitter``).
protocol EventBatches: Sendable {
    /// In one transaction: reads which (token, type) pairs of `tokens` were kept before (as
    /// ``KeptEvent/key(token:type:)`` keys), hands them to `decide`, once, and keeps the rows it
    /// answers, each counted one added to the counts and, with a viewer, to the viewers'
    /// impressions. Keeps nothing when it throws.
    func commit(tokens: [String], decide: (Set<String>) -> [KeptEvent]) async throws
}

/// An event the committer keeps: one row of the store's `events`.
struct KeptEvent: Sendable {
    var token: AdToken
    var type: AdEventType
    /// When it was decided, in milliseconds since 1970.
    var time: Int64
    /// The viewer, for an event of a campaign with a frequency cap.
    var viewer: String?
    /// Whether it counts (an event past its campaign's limits is kept uncounted).
    var counted: Bool

    /// The key of a (token, type) pair reported.
    static func key(token: String, type: AdEventType) -> String { "\(token) \(type.rawValue)" }

    /// The row as the stores take it, an element of a JSON array: token, type, time, hour,
    /// campaign, creative, unit, viewer and counted (1 or 0).
    var json: JSONValue {
        .array([
            .string(token.id), .string(type.rawValue), .number(.int(time)), .number(.int(AdReport.hour(of: time))),
            .string(token.campaignID), .string(token.creativeID), .string(token.adUnitID), viewer.map { .string($0) } ?? .null,
            .number(.int(counted ? 1 : 0)),
        ])
    }
}
