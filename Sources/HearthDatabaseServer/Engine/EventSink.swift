import HearthCore
import NIOCore

/// How a transport encodes view changes for its clients (an SSE event, a WebSocket frame).
///
/// Listeners with equal formats on the same location and query share one encoded event per write.
public protocol EventFormat: Sendable, Hashable {
    /// The bytes that tell a client at `location` about `change`.
    func encode(_ change: ViewChange, location: DatabasePath, query: QueryParams) -> ByteBuffer
}

/// Where a listener's events go. A sink whose client cannot keep up refuses an event, and is
/// then dropped by the engine; the transport closes its connection.
public protocol EventSink: AnyObject, Sendable {
    /// Queues `event`; returns `false` when the sink's bound is exceeded or it is closed.
    func send(_ event: ByteBuffer) -> Bool

    /// Tells the client that the listener lost read access (the rules or its credential
    /// changed); the engine has removed it.
    func revoke()
}
