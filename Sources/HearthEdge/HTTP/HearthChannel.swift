import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import ServiceLifecycle

/// The connections of a Hearth server: HTTP/1.1 requests for Hummingbird's responder, and
/// WebSocket upgrades to the service that claims them, whose sessions run on their own channel
/// handlers. Every connection passes the ``ConnectionGuards`` first.
package struct HearthChannel: ServerChildChannel, HTTPChannelHandler {
    /// What a new connection turned out to be.
    package enum Kind: Sendable {
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case webSocket(any WebSocketSession)
    }

    package struct Value: ServerChildChannelValue {
        let kind: EventLoopFuture<Kind>
        package let channel: any Channel
    }

    package let responder: HTTPChannelHandler.Responder
    let webSocket: any WebSocketService
    /// How long a connection may take to send a complete request head, and how long an HTTP
    /// connection may stay idle between requests, before it is closed.
    let idleTimeout: Duration
    let guards: ConnectionGuards
    /// Where the connections and their bytes are counted; `nil` for a port that is not
    /// counted (the console's).
    let metrics: TrafficMetrics?
    /// Whether the connections arrive over TLS (``TLSChannel``): requests then carry the `https`
    /// scheme, which the URLs products give back follow.
    var isSecure = false

    package init(
        responder: @escaping HTTPChannelHandler.Responder, webSocket: any WebSocketService, idleTimeout: Duration,
        guards: ConnectionGuards, metrics: TrafficMetrics? = nil
    ) {
        self.responder = responder
        self.webSocket = webSocket
        self.idleTimeout = idleTimeout
        self.guards = guards
        self.metrics = metrics
    }

    /// Why a connection was closed as soon as it was accepted.
    struct Refused: Error {}

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            guard try admit(channel) else { return Value(kind: channel.eventLoop.makeFailedFuture(Refused()), channel: channel) }
            return try configureHTTP1(channel, logger: logger)
        }
    }

    /// Whether the guards admit `channel`, which is then counted among the open connections;
    /// one refused is closed.
    package func admit(_ channel: any Channel) throws -> Bool {
        guard guards.admits(channel) else {
            channel.close(promise: nil)
            return false
        }
        if let metrics { try count(channel, in: metrics) }
        return true
    }

    /// Configures an admitted connection for HTTP/1.1, with the upgrade to a WebSocket.
    package func configureHTTP1(_ channel: any Channel, logger: Logger) throws -> Value {
        let malformedRequests = NIOLoopBound(MalformedRequestHandler(), eventLoop: channel.eventLoop)
        let upgrader = NIOTypedWebSocketServerUpgrader<Kind>(
            maxFrameSize: webSocket.maximumFrameSize,
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(webSocket.claims(head) ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    // It handles HTTP parts only; WebSocket frames follow.
                    channel.pipeline.syncOperations.removeHandler(malformedRequests.value, promise: nil)
                    return .webSocket(try webSocket.accept(channel: channel, head: head))
                }
            })
        let upgradeConfiguration = NIOTypedHTTPServerUpgradeConfiguration<Kind>(
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: isSecure))
                    try channel.pipeline.syncOperations.addHandlers(guards.requestHandlers())
                    try channel.pipeline.syncOperations.addHandler(
                        HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
                    return .http(
                        try NIOAsyncChannel(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true)))
                }
            })
        var configuration = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgradeConfiguration)
        // As Hummingbird's own HTTP/1 channel, which pipelines and validates headers itself;
        // requests that cannot be parsed are answered by the malformed-request handler.
        configuration.enablePipelining = false
        configuration.enableErrorHandling = false
        configuration.enableResponseHeaderValidation = false
        let kind = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
        let upgradeHandler = try channel.pipeline.syncOperations.handler(type: NIOTypedHTTPServerUpgradeHandler<Kind>.self)
        try channel.pipeline.syncOperations.addHandler(malformedRequests.value, position: .before(upgradeHandler))
        closeUnlessHeadArrives(channel: channel, kind: kind)
        return Value(kind: kind, channel: channel)
    }

    /// The HTTP/2 side of a TLS connection that negotiated it: the same responder, the same
    /// guards on each stream's body, the same idle timeout.
    package func http2() -> HTTP2Channel {
        HTTP2Channel(
            responder: responder,
            configuration: .init(
                idleTimeout: idleTimeout,
                streamConfiguration: .init(additionalChannelHandlers: [ConnectionHeaderFilter()] + guards.requestHandlers())))
    }

    /// Counts `channel` among the open connections until it closes, and its bytes.
    private func count(_ channel: any Channel, in metrics: TrafficMetrics) throws {
        try channel.pipeline.syncOperations.addHandler(
            ByteCountingHandler(received: metrics.receivedBytes, sent: metrics.sentBytes), position: .first)
        metrics.connections.increment()
        channel.closeFuture.whenComplete { _ in metrics.connections.decrement() }
    }

    /// Closes a connection whose first request head is not complete within ``idleTimeout``
    /// (a slow or silent client holding a descriptor). Later requests on a kept-alive
    /// connection are bounded by the idle timeout of ``HTTPConnectionStateHandler``.
    private func closeUnlessHeadArrives(channel: any Channel, kind: EventLoopFuture<Kind>) {
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(idleTimeout)) {
            channel.close(promise: nil)
        }
        kind.whenComplete { _ in deadline.cancel() }
    }

    package func handle(value: Value, logger: Logger) async {
        do {
            // A connection that has not sent its first request when the server shuts down is
            // closed, not waited for until its idle timeout: browsers open spare connections
            // they may never use.
            let kind = try await withGracefulShutdownHandler {
                try await value.kind.get()
            } onGracefulShutdown: {
                value.channel.close(promise: nil)
            }
            switch kind {
            case .http(let channel): await handleHTTP(asyncChannel: channel, logger: logger)
            case .webSocket(let session): await session.run()
            }
        } catch {
            logger.debug("connection ended before it was set up", metadata: ["error": "\(error)"])
        }
    }
}
