import NIOCore
import Synchronization

/// Stops reading from a client whose messages queue up faster than they are served, and reads
/// again once the queue has drained to half the bound: unread requests wait in the kernel's
/// buffers and the client's, never in Hearth's memory without limit.
final class InboundGate: Sendable {
    private let channel: any Channel
    private let limit: Int
    private let state = Mutex(State())

    private struct State {
        var queuedBytes = 0
        var isPaused = false
    }

    init(channel: any Channel, limit: Int) {
        self.channel = channel
        self.limit = limit
    }

    /// A message of `bytes` was queued for serving.
    func queued(_ bytes: Int) {
        let pause = state.withLock { state in
            state.queuedBytes += bytes
            guard state.queuedBytes > limit, !state.isPaused else { return false }
            state.isPaused = true
            return true
        }
        if pause { channel.setOption(.autoRead, value: false).whenFailure { _ in } }
    }

    /// A message of `bytes` was served.
    func served(_ bytes: Int) {
        let resume = state.withLock { state in
            state.queuedBytes -= bytes
            guard state.isPaused, state.queuedBytes <= limit / 2 else { return false }
            state.isPaused = false
            return true
        }
        if resume { channel.setOption(.autoRead, value: true).whenFailure { _ in } }
    }
}
