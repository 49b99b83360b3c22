import NIOCore
import NIOPosix

/// A socket that answers every HTTP request with the same bytes, or never answers: the
/// failures of a server or a network that a real Hearth cannot be made to show on demand
/// (a 503, an unreadable body, silence), for the SDK's error mapping.
final class CannedHTTPServer: @unchecked Sendable {
    let port: Int
    private let channel: any Channel
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Answers with `response` (a whole HTTP response), or with nothing when it is `nil`.
    init(response: String?) async throws {
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.addHandler(Answerer(response: response))
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress!.port!
    }

    func close() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// Writes the canned answer once a request's head has arrived.
    private final class Answerer: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let response: String?
        var received = ""

        init(response: String?) {
            self.response = response
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received += String(buffer: unwrapInboundIn(data))
            guard let response, received.contains("\r\n\r\n") else { return }
            received = ""
            context.writeAndFlush(NIOAny(ByteBuffer(string: response)), promise: nil)
        }
    }
}
