import NIOCore
import Synchronization

/// A bounded queue of encoded events between the engine and one streaming connection.
///
/// The engine ``send(_:)``s events; the connection's writer consumes them from ``events`` and
/// reports each with ``consumed()``. When the ``Backlog`` passes its limit — the client stopped
/// reading — the sink closes itself and calls `onOverflow`, which closes the connection: a slow
/// client is disconnected, never buffered without limit.
final class StreamSink: EventSink {
    let events: AsyncStream<ByteBuffer>
    private let continuation: AsyncStream<ByteBuffer>.Continuation
    private let onOverflow: @Sendable () -> Void
    private let state: Mutex<State>

    private struct State {
        var backlog: Backlog
        var isClosed = false
    }

    init(limit: Int, onOverflow: @escaping @Sendable () -> Void) {
        (events, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        self.state = Mutex(State(backlog: Backlog(limit: limit)))
        self.onOverflow = onOverflow
    }

    func send(_ event: ByteBuffer) -> Bool {
        let accepted: Bool? = state.withLock { state in
            if state.isClosed { return false }
            guard state.backlog.admit(event.readableBytes) else {
                state.isClosed = true
                return nil
            }
            return true
        }
        switch accepted {
        case true?:
            continuation.yield(event)
            return true
        case false?:
            return false
        case nil:
            continuation.finish()
            onOverflow()
            return false
        }
    }

    /// Reports that the oldest queued event was written to the connection.
    func consumed() {
        state.withLock { $0.backlog.releaseOldest() }
    }

    /// Sends `cancel` and ends the stream (protocol §12).
    func revoke() {
        end(with: SSEFormat.cancel)
    }

    /// Sends `event` and ends the stream.
    func end(with event: ByteBuffer) {
        _ = send(event)
        close()
    }

    /// Ends the stream after the events already queued.
    func close() {
        state.withLock { $0.isClosed = true }
        continuation.finish()
    }
}
