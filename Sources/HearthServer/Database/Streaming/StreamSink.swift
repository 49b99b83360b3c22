import NIOCore
import Synchronization

/// A bounded queue of encoded events between the engine and one streaming connection.
///
/// The engine ``send(_:)``s events; the connection's writer consumes them from ``events`` and
/// reports each with ``consumed(_:)``. When more than `limit` bytes wait — the client stopped
/// reading — the sink closes itself and calls `onOverflow`, which closes the connection: a slow
/// client is disconnected, never buffered without limit.
final class StreamSink: EventSink {
    let events: AsyncStream<ByteBuffer>
    private let continuation: AsyncStream<ByteBuffer>.Continuation
    private let limit: Int
    private let onOverflow: @Sendable () -> Void
    private let state = Mutex(State())

    private struct State {
        var queuedBytes = 0
        var isClosed = false
    }

    init(limit: Int, onOverflow: @escaping @Sendable () -> Void) {
        (events, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        self.limit = limit
        self.onOverflow = onOverflow
    }

    func send(_ event: ByteBuffer) -> Bool {
        let accepted: Bool? = state.withLock { state in
            if state.isClosed { return false }
            if state.queuedBytes + event.readableBytes > limit {
                state.isClosed = true
                return nil
            }
            state.queuedBytes += event.readableBytes
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

    /// Reports that `bytes` of queued events were written to the connection.
    func consumed(_ bytes: Int) {
        state.withLock { $0.queuedBytes -= bytes }
    }

    /// Sends `cancel` and ends the stream (protocol §12).
    func revoke() {
        _ = send(SSEFormat.cancel)
        close()
    }

    /// Ends the stream after the events already queued.
    func close() {
        state.withLock { $0.isClosed = true }
        continuation.finish()
    }
}
