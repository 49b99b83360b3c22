import Synchronization

/// The writes a relay passes on to a namespace's owner, encoded, sent in order, as many at a
/// time as have queued up while the previous post was out (up to ``batchLimit`` writes and
/// ``batchBytes`` bytes, or one larger write alone); each write's answer runs in the order the
/// writes were queued.
final class ForwardingQueue: Sendable {
    typealias Answered = @Sendable (Result<(ForwardedWrite.Outcome, Int64), DatabaseError>) async -> Void
    typealias Send = @Sendable ([[UInt8]]) async throws -> (Int64, [ForwardedWrite.Outcome])

    /// The most writes one post carries.
    static let batchLimit = 512
    /// The most bytes one post carries, unless its one write is larger.
    static let batchBytes = 4 << 20

    /// The failure of a write the queue never sent (it closed first): the write did not land,
    /// and may be made again elsewhere.
    static let notSent = DatabaseError.unavailable("the link to the namespace's owner closed before the write was sent")
    /// The failure of a write whose post failed: whether it landed is unknown.
    static let answerLost = DatabaseError.unavailable("the namespace's owner did not answer")

    private struct State {
        var queued: [(write: [UInt8], answered: Answered)] = []
        var isSending = false
        var isClosed = false
    }

    private let state = Mutex(State())

    /// Queues `write`, encoded; `send` posts a batch when no post is out.
    func add(_ write: [UInt8], _ answered: @escaping Answered, send: @escaping Send) {
        let startsSending = state.withLock { state -> Bool? in
            guard !state.isClosed else { return nil }
            state.queued.append((write, answered))
            guard !state.isSending else { return false }
            state.isSending = true
            return true
        }
        switch startsSending {
        case nil: Task { await answered(.failure(Self.notSent)) }
        case true?: Task { await drain(send) }
        case false?: break
        }
    }

    private func drain(_ send: Send) async {
        while let batch = nextBatch() {
            do {
                let (sequence, outcomes) = try await send(batch.map(\.write))
                for (item, outcome) in zip(batch, outcomes) { await item.answered(.success((outcome, sequence))) }
            } catch {
                for item in batch { await item.answered(.failure(Self.answerLost)) }
            }
        }
    }

    private func nextBatch() -> [(write: [UInt8], answered: Answered)]? {
        state.withLock { state in
            guard !state.queued.isEmpty, !state.isClosed else {
                state.isSending = false
                return nil
            }
            var count = 1
            var bytes = state.queued[0].write.count
            while count < min(Self.batchLimit, state.queued.count), bytes + state.queued[count].write.count <= Self.batchBytes {
                bytes += state.queued[count].write.count
                count += 1
            }
            let batch = Array(state.queued.prefix(count))
            state.queued.removeFirst(count)
            return batch
        }
    }

    /// Refuses writes from now on; those still queued are answered with ``notSent``.
    func close() {
        let dropped = state.withLock { state in
            state.isClosed = true
            defer { state.queued = [] }
            return state.queued
        }
        guard !dropped.isEmpty else { return }
        Task { for item in dropped { await item.answered(.failure(Self.notSent)) } }
    }
}
