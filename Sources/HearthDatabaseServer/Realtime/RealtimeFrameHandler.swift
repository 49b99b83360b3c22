import NIOCore
import NIOWebSocket

/// The channel handler of an upgraded realtime connection: answers WebSocket pings and close
/// frames, joins fragmented WebSocket messages, reassembles Firebase's split messages
/// (``FrameAssembler``) and hands every whole message to the ``RealtimeConnection``.
final class RealtimeFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let connection: RealtimeConnection
    private var assembler: FrameAssembler
    /// A WebSocket message whose final fragment has not arrived yet.
    private var fragments: ByteBuffer?

    init(connection: RealtimeConnection, messageLimit: Int) {
        self.connection = connection
        self.assembler = FrameAssembler(limit: messageLimit)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            if frame.fin {
                receive(frame.unmaskedData)
            } else {
                fragments = frame.unmaskedData
            }
        case .continuation:
            guard var message = fragments else { return }
            message.writeImmutableBuffer(frame.unmaskedData)
            if frame.fin {
                fragments = nil
                receive(message)
            } else if message.readableBytes > assembler.limit {
                fragments = nil
                receive(message)
            } else {
                fragments = message
            }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readSlice(length: 2) ?? ByteBuffer()
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: code)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    private func receive(_ frame: ByteBuffer) {
        switch assembler.receive(frame) {
        case .message(let message): connection.received(.message(message))
        case .oversized(let prefix): connection.received(.oversized(prefix: prefix))
        case .nothing: break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.inputEnded()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server allows half-closed sockets; a realtime client that stops sending is gone,
        // as is one silent for longer than its keepalive allows.
        if case .inputClosed? = event as? ChannelEvent {
            context.close(promise: nil)
        } else if case .read? = event as? IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { connection.outbox.flush() }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
