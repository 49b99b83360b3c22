import Synchronization

/// Waits for a number of ports to listen: what must serve before something that depends on them
/// begins (an ACME order, whose validation connects to them).
final class ListeningPorts: Sendable {
    private struct State {
        var waitingFor: Int
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(waitingFor: count))
    }

    /// Records that one more port listens.
    func listening() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.waitingFor -= 1
            guard state.waitingFor <= 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once every port listens, or once the task is cancelled.
    func all() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    let ready = state.waitingFor <= 0 || Task.isCancelled
                    if !ready { state.waiters[id] = continuation }
                    return ready
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
