import DequeModule
import NIOCore
import Synchronization

/// Everything a realtime connection sends — responses, pushes shared with other connections,
/// control messages — in one ordered, bounded queue of encoded WebSocket frames.
///
/// Any thread may send; the frames are written on the channel's event loop, everything queued
/// in one go with one flush, in the event-loop turn its ``LoopFlusher`` schedules. While the
/// socket accepts no more, frames wait here; when the ``Backlog`` passes its limit, the client
/// is not reading and the connection is closed.
final class Outbox: RealtimeOutbox {
    private let channel: any Channel
    private let writer: NIOLoopBound<WireWriter>
    private let flusher: LoopFlusher
    private let state: Mutex<State>

    private struct State {
        var frames: Deque<ByteBuffer> = []
        var backlog: Backlog
        var isFlushScheduled = false
        var isClosed = false
    }

    /// Must be created on the channel's event loop, with `writer` already in its pipeline.
    init(channel: any Channel, writer: WireWriter, flusher: LoopFlusher, limit: Int) {
        self.channel = channel
        self.writer = NIOLoopBound(writer, eventLoop: channel.eventLoop)
        self.flusher = flusher
        self.state = Mutex(State(backlog: Backlog(limit: limit)))
    }

    /// Queues one message, split and framed as Firebase clients expect.
    @discardableResult
    func send(_ message: ByteBuffer) -> Bool {
        send(wire: WebSocketWire.encode(message))
    }

    /// Queues frames encoded by ``WebSocketWire``. Returns `false` when the connection is closed
    /// or these frames overflowed its queue (which closes it).
    @discardableResult
    func send(wire: ByteBuffer) -> Bool {
        enum Outcome { case queued, scheduleFlush, refused, overflowed }
        let outcome: Outcome = state.withLock { state in
            if state.isClosed { return .refused }
            guard state.backlog.admit(wire.readableBytes) else {
                state.isClosed = true
                state.frames = []
                return .overflowed
            }
            state.frames.append(wire)
            if state.isFlushScheduled { return .queued }
            state.isFlushScheduled = true
            return .scheduleFlush
        }
        switch outcome {
        case .queued:
            return true
        case .scheduleFlush:
            flusher.schedule(self)
            return true
        case .refused:
            return false
        case .overflowed:
            channel.close(promise: nil)
            return false
        }
    }

    /// Writes every queued frame, if the socket accepts more. Runs on the event loop: when its
    /// flusher's turn comes, and when the channel becomes writable again.
    func flush() {
        let frames: Deque<ByteBuffer> = state.withLock { state in
            state.isFlushScheduled = false
            guard channel.isWritable else { return [] }
            defer {
                state.frames = []
                state.backlog.clear()
            }
            return state.frames
        }
        guard !frames.isEmpty else { return }
        writer.value.write(frames)
    }

    /// Refuses further messages; the connection is ending.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.frames = []
        }
    }
}
