import Metrics
import NIOCore

/// Counts the bytes a connection receives and sends, first in its pipeline.
final class ByteCountingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    /// Encoders send `IOData`; a plain `ByteBuffer` unwraps as one too.
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let received: Counter
    private let sent: Counter

    init(received: Counter, sent: Counter) {
        self.received = received
        self.sent = sent
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received.increment(by: Int64(unwrapInboundIn(data).readableBytes))
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        sent.increment(by: Int64(unwrapOutboundIn(data).readableBytes))
        context.write(data, promise: promise)
    }
}
