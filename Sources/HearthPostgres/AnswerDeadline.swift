import Synchronization

/// Waits for an answer no longer than a deadline, without waiting for the work that gives it to
/// stop: a query already sent to PostgreSQL cannot be called back (the client ignores
/// cancellation once it waits for the server), and a task group would wait for it however long
/// TCP takes to give up. On timeout the work is cancelled and left to finish on its own.
package final class AnswerDeadline<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
    }

    private let state: Mutex<State>

    private init(_ continuation: CheckedContinuation<Value, any Error>) {
        state = Mutex(State(continuation: continuation))
    }

    /// What `work` returns or throws, or `timeout` once `limit` has passed.
    package static func run(
        within limit: Duration, orThrow timeout: any Error, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            AnswerDeadline(continuation).start(work, limit: limit, timeout: timeout)
        }
    }

    private func start(_ work: @escaping @Sendable () async throws -> Value, limit: Duration, timeout: any Error) {
        let working = Task {
            do {
                finish(.success(try await work()))
            } catch {
                finish(.failure(error))
            }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            finish(.failure(timeout))
        }
        let isFinished = state.withLock { state in
            state.work = working
            state.timer = timer
            return state.continuation == nil
        }
        if isFinished {
            working.cancel()
            timer.cancel()
        }
    }

    /// Gives the first answer, and cancels the work and the timer (the one that answered is done).
    private func finish(_ result: Result<Value, any Error>) {
        let state = state.withLock { state in
            defer { state.continuation = nil }
            return state
        }
        guard let continuation = state.continuation else { return }
        continuation.resume(with: result)
        state.work?.cancel()
        state.timer?.cancel()
    }
}
