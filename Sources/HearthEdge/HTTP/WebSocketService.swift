import NIOCore
import NIOHTTP1

/// A protocol a product speaks over WebSocket on the shared port (the Realtime Database's
/// `/.ws`): which upgrade requests are its, and the session an accepted upgrade becomes. The
/// edge's channel upgrades the requests the service claims and runs their sessions; everything
/// after the upgrade is the product's.
package protocol WebSocketService: Sendable {
    /// The largest frame a client may send.
    var maximumFrameSize: Int { get }
    /// Whether the upgrade request `head` is for this service.
    func claims(_ head: HTTPRequestHead) -> Bool
    /// Sets up the upgraded `channel` (its handlers, its first messages); throwing closes it.
    func accept(channel: any Channel, head: HTTPRequestHead) throws -> any WebSocketSession
}

/// A connection a ``WebSocketService`` accepted.
package protocol WebSocketSession: Sendable {
    /// Serves the connection until it ends.
    func run() async
}

/// The service of a port that speaks HTTP only (the console's): it claims no upgrade, so every
/// upgrade request is answered as a plain HTTP request.
package struct NoWebSocketService: WebSocketService {
    struct Refused: Error {}

    package init() {}

    package var maximumFrameSize: Int { 1 << 14 }
    package func claims(_ head: HTTPRequestHead) -> Bool { false }
    package func accept(channel: any Channel, head: HTTPRequestHead) throws -> any WebSocketSession { throw Refused() }
}
