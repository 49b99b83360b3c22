import HearthCore
import HearthEdge
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Accepts realtime connections: WebSocket upgrades of `/.ws?v=5&ns=…` (protocol §3.1), and of
/// `/.ws?s=<id>` that take over a long-polling session (§3.9).
package struct RealtimeEndpoint: WebSocketService {
    let database: DatabaseService
    /// The namespace of connections without `ns` (or with an empty one).
    let defaultNamespace: String
    /// The host a client is told to use when its request has no `Host` header.
    let fallbackHost: String
    /// How many bytes may wait for one client before it is disconnected.
    let outboxLimit: Int
    /// The largest message a client may send (Firebase: 16 MB per write from an SDK).
    let messageLimit: Int
    /// How long a client may send nothing before it counts as gone. Clients send a keepalive
    /// after 45 s of silence, so twice that means the connection is dead.
    let silenceLimit: TimeAmount
    let logger: Logger
    /// Reads the credentials of `auth` requests.
    let credentials: any CredentialVerifying
    /// Where messages are counted and, while it is followed, recorded.
    let activity: RealtimeActivity
    /// Batches the flushes of each event loop's connections.
    let flushers = LoopFlushers()
    /// The live sessions of every transport, for `ls`.
    let sessions: RealtimeSessions
    /// The live long-polling sessions, which a WebSocket may upgrade.
    let longPolls = LongPollSessions()

    package init(
        database: DatabaseService, defaultNamespace: String, fallbackHost: String, outboxLimit: Int, messageLimit: Int,
        silenceLimit: TimeAmount, logger: Logger, credentials: any CredentialVerifying, feed: RequestFeed? = nil,
        metrics: TrafficMetrics = TrafficMetrics(), cluster: RealtimeSessions.ClusterNode? = nil
    ) {
        self.database = database
        self.defaultNamespace = defaultNamespace
        self.fallbackHost = fallbackHost
        self.outboxLimit = outboxLimit
        self.messageLimit = messageLimit
        self.silenceLimit = silenceLimit
        self.logger = logger
        self.credentials = credentials
        self.activity = RealtimeActivity(feed: feed, messages: metrics.realtimeMessages)
        self.sessions = RealtimeSessions(count: metrics.realtimeSessions, cluster: cluster)
    }

    package var maximumFrameSize: Int { messageLimit }

    /// Whether an upgrade request is for the realtime protocol.
    package func claims(_ head: HTTPRequestHead) -> Bool {
        URI(head.uri).path == "/.ws"
    }

    /// Starts a connection on an upgraded channel: sends the handshake and installs the
    /// handler that feeds it.
    package func accept(channel: any Channel, head: HTTPRequestHead) throws -> any WebSocketSession {
        let parameters = URI(head.uri).queryParameters
        let namespace = parameters["ns"].map(String.init).flatMap { $0.isEmpty ? nil : $0 } ?? defaultNamespace
        // Clients keep using the host of the handshake, so it must be the one they reached.
        let host = head.headers["host"].first ?? fallbackHost
        let writer = WireWriter()
        try channel.pipeline.syncOperations.addHandlerAtTransport(writer)
        let outbox = Outbox(
            channel: channel, writer: writer, flusher: flushers.flusher(for: channel.eventLoop), limit: outboxLimit)
        let role: RealtimeConnection.Role
        if let upgraded = parameters["s"].flatMap({ longPolls[String($0)] }), upgraded.attach(secondary: outbox, channel: channel) {
            role = .upgrading(upgraded)
        } else {
            if let previous = parameters["ls"], !previous.isEmpty {
                sessions.end(String(previous))
            }
            role = .session(namespace: namespace)
        }
        let connection = RealtimeConnection(
            channel: channel, outbox: outbox, role: role, host: host, database: database, sessions: sessions,
            credentials: credentials, activity: activity, logger: logger)
        try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: silenceLimit))
        try channel.pipeline.syncOperations.addHandler(RealtimeFrameHandler(connection: connection, messageLimit: messageLimit))
        return connection
    }
}
