import NIOCore
import NIOHTTP1

/// Answers a request that cannot be parsed — an unknown method, a garbage request line, a head
/// over the size limits, a TLS handshake on the plain-HTTP port — with a status and a short
/// text, then closes the connection, as production HTTP servers do.
///
/// Sits right after the HTTP decoder, in place of NIO's own error handler, which answers every
/// such request with a bare 400. It is removed when a connection upgrades to WebSocket.
/// Event-loop bound, like every channel handler.
final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A response has started and not ended: an error answer cannot be written in its middle.
    private var isResponding = false
    /// The request was refused and the connection is closing: the decoder's complaints about
    /// the rest of its input are not news.
    private var hasRefused = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !hasRefused else { return }
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        hasRefused = true
        // The error is answered here; passing it on would make the application answer it twice.
        guard !isResponding else {
            context.close(promise: nil)
            return
        }
        let (status, text) = Self.answer(to: parseError)
        var body = context.channel.allocator.buffer(capacity: text.utf8.count + 1)
        body.writeString(text + "\n")
        let headers = HTTPHeaders([
            ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "\(body.readableBytes)"),
            ("Connection", "close"),
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            Self.closeLingering(context)
        }
    }

    /// Ends the output, then closes the connection a moment later. Closing at once, with the
    /// rest of a large request still unread, makes the kernel reset the connection, and the
    /// client may lose the answer; meanwhile what it still sends is read and dropped.
    private static func closeLingering(_ context: ChannelHandlerContext) {
        context.close(mode: .output, promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: lingerTime) {
            context.close(promise: nil)
        }
    }

    /// How long a refused connection's unread input is drained before it is closed.
    static let lingerTime = TimeAmount.seconds(1)

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where !head.isInformational: isResponding = true
        case .end: isResponding = false
        case .head, .body: break
        }
        context.write(data, promise: promise)
    }

    /// The status and text for a request the decoder refused.
    static func answer(to error: HTTPParserError) -> (HTTPResponseStatus, String) {
        switch error {
        case .headerOverflow:
            // The decoder counts the request line and the header fields against one limit.
            (.requestHeaderFieldsTooLarge, "Request line or header fields too large.")
        case .invalidMethod:
            (.badRequest, "Bad request: unknown method, or not an HTTP request.")
        case .invalidVersion:
            (.badRequest, "Bad request: not an HTTP/1.x request.")
        default:
            (.badRequest, "Bad request: the request could not be parsed.")
        }
    }
}

extension HTTPResponseHead {
    /// A 1xx head, which another head follows.
    fileprivate var isInformational: Bool { (100..<200).contains(status.code) }
}
