import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Drops the header fields that describe an HTTP/1.1 connection (`Connection`, `Keep-Alive`,
/// `Proxy-Connection`, `Transfer-Encoding`, `Upgrade`) from the responses of an HTTP/2 stream:
/// HTTP/2 forbids them, and a stream that sends one is reset by the client (RFC 9113 §8.2.2).
/// Responders write them for HTTP/1.1 (an event stream's `Connection: keep-alive`).
final class ConnectionHeaderFilter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private static let names: [HTTPField.Name] = [
        .connection, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Proxy-Connection")!, .transferEncoding,
        HTTPField.Name("Upgrade")!,
    ]

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var response) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        for name in Self.names { response.headerFields[name] = nil }
        context.write(wrapOutboundOut(.head(response)), promise: promise)
    }
}
