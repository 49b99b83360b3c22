import Synchronization

/// The writes a relay passes on to a namespace's owner, sent in order, as many at a time as
/// have queued up (up to ``batchLimit``) while the previous post was out; each write's answer
/// runs in the order the writes were queued.
final class ForwardingQueue: Sendable {
    typealias Answered = @Sendable (Result<(ForwardedWrite.Outcome, Int64), DatabaseError>) async -> Void
    typealias Send = @Sendable ([ForwardedWrite]) async throws -> (Int64, [ForwardedWrite.Outcome])

    /// The most writes one post carries.
    static let batchLimit = 512

    private struct State {
        var queued: [(write: ForwardedWrite, answered: Answered)] = []
        var isSending = false
        var isClosed = false
    }

    private let state = Mutex(State())

    /// Queues `write`; `send` posts a batch when no post is out.
    func add(_ write: ForwardedWrite, _ answered: @escaping Answered, send: @escaping Send) {
        let startsSending = state.withLock { state -> Bool? in
            guard !state.isClosed else { return nil }
            state.queued.append((write, answered))
            guard !state.isSending else { return false }
            state.isSending = true
            return true
        }
        switch startsSending {
        case nil: Task { await answered(.failure(Self.closed)) }
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
                for item in batch { await item.answered(.failure(Self.closed)) }
            }
        }
    }

    private func nextBatch() -> [(write: ForwardedWrite, answered: Answered)]? {
        state.withLock { state in
            guard !state.queued.isEmpty, !state.isClosed else {
                state.isSending = false
                return nil
            }
            let batch = Array(state.queued.prefix(Self.batchLimit))
            state.queued.removeFirst(batch.count)
            return batch
        }
    }

    /// Refuses writes from now on; those still queued are answered with a failure.
    func close() {
        let dropped = state.withLock { state in
            state.isClosed = true
            defer { state.queued = [] }
            return state.queued
        }
        guard !dropped.isEmpty else { return }
        Task { for item in dropped { await item.answered(.failure(Self.closed)) } }
    }

    private static let closed = DatabaseError.unavailable("the link to the namespace's owner is closed")
}
