import NIOCore
import Synchronization

/// Server-to-client WebSocket text frames, encoded once and written as raw bytes.
///
/// A server's frames are not masked, so the bytes of a push are the same for every connection
/// that receives it: they are built once per event and shared.
enum WebSocketWire {
    /// The wire bytes of `message`: split as ``RealtimeFraming`` describes, each part framed as
    /// a final text frame.
    static func encode(_ message: ByteBuffer) -> ByteBuffer {
        let parts = RealtimeFraming.frames(for: message)
        var wire = ByteBuffer()
        wire.reserveCapacity(message.readableBytes + parts.count * 10)
        for part in parts {
            writeHeader(length: part.readableBytes, into: &wire)
            wire.writeImmutableBuffer(part)
        }
        return wire
    }

    /// The message that ``encode(_:)`` framed.
    static func decode(_ wire: ByteBuffer) -> ByteBuffer {
        var wire = wire
        var payloads: [ByteBuffer] = []
        while let payload = readFrame(&wire) { payloads.append(payload) }
        // A message split in several parts starts with a count frame.
        if payloads.count > 1 { payloads.removeFirst() }
        var message = ByteBuffer()
        for payload in payloads { message.writeImmutableBuffer(payload) }
        return message
    }

    private static func writeHeader(length: Int, into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(0x81))  // FIN, text
        if length < 126 {
            buffer.writeInteger(UInt8(length))
        } else if length <= Int(UInt16.max) {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(length))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(length))
        }
    }

    private static func readFrame(_ wire: inout ByteBuffer) -> ByteBuffer? {
        guard wire.readInteger(as: UInt8.self) != nil, let short = wire.readInteger(as: UInt8.self) else { return nil }
        let length: Int
        switch short {
        case 126: length = Int(wire.readInteger(as: UInt16.self) ?? 0)
        case 127: length = Int(wire.readInteger(as: UInt64.self) ?? 0)
        default: length = Int(short)
        }
        return wire.readSlice(length: length)
    }
}

/// The first handler of a realtime connection's pipeline: ``Outbox`` writes pre-encoded frames
/// through its context, straight to the socket, past the WebSocket frame encoder.
final class WireWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Writes `frames` and flushes once. Must run on the channel's event loop.
    func write(_ frames: some Sequence<ByteBuffer>) {
        guard let context else { return }
        for frame in frames { context.write(wrapOutboundOut(frame), promise: nil) }
        context.flush()
    }
}

/// Flushes the outboxes of one event loop's connections in one event-loop turn: an event for
/// a thousand connections costs one hop onto each event loop, not a thousand.
final class LoopFlusher: Sendable {
    private let eventLoop: any EventLoop
    private let state = Mutex(State())

    private struct State {
        var pending: [Outbox] = []
        var isScheduled = false
    }

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Flushes `outbox` in the next turn of the event loop.
    func schedule(_ outbox: Outbox) {
        let needsTurn = state.withLock { state in
            state.pending.append(outbox)
            defer { state.isScheduled = true }
            return !state.isScheduled
        }
        if needsTurn { eventLoop.execute { self.run() } }
    }

    private func run() {
        let outboxes = state.withLock { state in
            defer {
                state.pending = []
                state.isScheduled = false
            }
            return state.pending
        }
        for outbox in outboxes { outbox.flush() }
    }
}

/// One ``LoopFlusher`` per event loop, shared by all realtime connections of a server.
final class LoopFlushers: Sendable {
    private let flushers = Mutex<[ObjectIdentifier: LoopFlusher]>([:])

    func flusher(for eventLoop: any EventLoop) -> LoopFlusher {
        flushers.withLock { flushers in
            let key = ObjectIdentifier(eventLoop)
            if let flusher = flushers[key] { return flusher }
            let flusher = LoopFlusher(eventLoop: eventLoop)
            flushers[key] = flusher
            return flusher
        }
    }
}
