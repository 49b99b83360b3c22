import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// The main port over TLS: each new connection is admitted by the guards, served with the
/// certificate ``TLSCertificates`` holds then (or, for an ACME validation, the challenge's
/// certificate), and, by ALPN, handled as HTTP/2 (REST, event
/// streams and long-polling, many requests on one connection) or as HTTP/1.1 with its WebSocket
/// upgrade (``HearthChannel``). A client that has not finished its handshake within the idle
/// timeout is closed; one that does not speak TLS fails the handshake and is closed.
package struct TLSChannel: ServerChildChannel, HTTPChannelHandler {
    /// What a connection negotiated.
    package enum Negotiated: Sendable {
        case http1(HearthChannel.Value)
        case http2(HTTP2Channel.Value)
    }

    package struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        package let channel: any Channel
    }

    /// Ends a connection that an ACME validation opened.
    struct ChallengeAnswered: Error {}

    let http1: HearthChannel
    let http2: HTTP2Channel
    let certificates: TLSCertificates

    package init(_ http1: HearthChannel, certificates: TLSCertificates) {
        var http1 = http1
        http1.isSecure = true
        self.http1 = http1
        self.http2 = http1.http2()
        self.certificates = certificates
    }

    package var responder: HTTPChannelHandler.Responder { http1.responder }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            guard try http1.admit(channel) else {
                return Value(negotiated: channel.eventLoop.makeFailedFuture(HearthChannel.Refused()), channel: channel)
            }
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ClientHelloRouter(choose: certificates.context(for:))))
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result, channel in
                switch result {
                case .negotiated("h2"):
                    return http2.setup(channel: channel, logger: logger).map { .http2($0) }
                case .negotiated(ACMEChallengeResponses.applicationProtocol):
                    // An ACME validation: the handshake was its answer.
                    return channel.close().flatMapThrowing { throw ChallengeAnswered() }
                default:
                    return channel.eventLoop.makeCompletedFuture { .http1(try http1.configureHTTP1(channel, logger: logger)) }
                }
            }
            try channel.pipeline.syncOperations.addHandler(negotiation)
            let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(http1.idleTimeout)) { channel.close(promise: nil) }
            negotiation.protocolNegotiationResult.whenComplete { _ in deadline.cancel() }
            return Value(negotiated: negotiation.protocolNegotiationResult, channel: channel)
        }
    }

    package func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1(let connection): await http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(value: connection, logger: logger)
            }
        } catch {
            logger.debug("TLS connection ended before it was set up", metadata: ["error": "\(error)"])
        }
    }
}
