import NIOCore

/// Where a realtime session's messages go: a WebSocket connection (``Outbox``) or a
/// long-polling session (``LongPollOutbox``). Any thread may send; messages leave in the order
/// they were sent.
protocol RealtimeOutbox: AnyObject, Sendable {
    /// Queues one whole message (JSON text). Returns `false` when the client is gone or the
    /// message overflowed its queue.
    @discardableResult
    func send(_ message: ByteBuffer) -> Bool

    /// Queues a message already framed by ``WebSocketWire`` (pushes shared by many clients).
    @discardableResult
    func send(wire: ByteBuffer) -> Bool

    /// Refuses further messages: the session is ending.
    func close()
}
