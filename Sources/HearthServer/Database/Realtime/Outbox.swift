import DequeModule
import NIOCore
import NIOWebSocket
import Synchronization

/// Everything a realtime connection sends — responses, pushes shared with other connections,
/// control messages — in one ordered, bounded queue.
///
/// Any thread may ``send(_:)``; the frames are written on the channel's event loop, all that
/// queued up in one go with one flush. While the socket does not accept more, frames wait here;
/// when more than `limit` bytes wait, the client is not reading and the connection is closed.
final class Outbox: Sendable {
    private let channel: any Channel
    private let limit: Int
    private let state = Mutex(State())

    private struct State {
        var frames: Deque<ByteBuffer> = []
        var queuedBytes = 0
        var isFlushScheduled = false
        var isClosed = false
    }

    init(channel: any Channel, limit: Int) {
        self.channel = channel
        self.limit = limit
    }

    /// Queues one message, split into frames as Firebase clients expect. Returns `false` when
    /// the connection is closed or this message overflowed its queue (which closes it).
    @discardableResult
    func send(_ message: ByteBuffer) -> Bool {
        let frames = RealtimeFraming.frames(for: message)
        let bytes = frames.reduce(0) { $0 + $1.readableBytes }
        enum Outcome { case queued, scheduleFlush, refused, overflowed }
        let outcome: Outcome = state.withLock { state in
            if state.isClosed { return .refused }
            if state.queuedBytes + bytes > limit {
                state.isClosed = true
                state.frames = []
                return .overflowed
            }
            state.frames.append(contentsOf: frames)
            state.queuedBytes += bytes
            if state.isFlushScheduled { return .queued }
            state.isFlushScheduled = true
            return .scheduleFlush
        }
        switch outcome {
        case .queued:
            return true
        case .scheduleFlush:
            channel.eventLoop.execute { self.flush() }
            return true
        case .refused:
            return false
        case .overflowed:
            channel.close(promise: nil)
            return false
        }
    }

    /// Writes every queued frame, if the socket accepts more. Runs on the event loop: after a
    /// send, and when the channel becomes writable again.
    func flush() {
        let frames: Deque<ByteBuffer> = state.withLock { state in
            state.isFlushScheduled = false
            guard channel.isWritable else { return [] }
            defer {
                state.frames = []
                state.queuedBytes = 0
            }
            return state.frames
        }
        guard !frames.isEmpty else { return }
        for frame in frames {
            channel.write(WebSocketFrame(fin: true, opcode: .text, data: frame), promise: nil)
        }
        channel.flush()
    }

    /// Refuses further messages; the connection is ending.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.frames = []
        }
    }
}
