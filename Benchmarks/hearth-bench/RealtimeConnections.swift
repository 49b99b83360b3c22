import Dispatch
import NIOCore
import NIOPosix
import Synchronization

/// Raw realtime-protocol connections for load generation: a hand-written WebSocket upgrade,
/// frames masked with a zero key and parsed without copying more than needed, so that the load
/// generator spends little CPU and the server is what gets measured.
enum RealtimeConnections {
    /// What one connection does once its handshake arrived.
    enum Role: Sendable {
        /// Sends a durable put, waits for its response, sends the next, until `stopAt`; counts
        /// the responses after `measureFrom`.
        case writer(path: String, measureFrom: ContinuousClock.Instant, stopAt: ContinuousClock.Instant)
        /// Listens to `path` and times each push against the `"sent":<ns>` it carries; stops
        /// after `deliveries` timed pushes.
        case listener(path: String, deliveries: Int)
        /// Does nothing: an idle connection.
        case idle
    }

    /// Progress shared by every connection of a run.
    final class Tally: Sendable {
        let ready = Mutex(0)
        let completed = Mutex(0)
        let finished = Mutex(0)
        let latencies = Mutex<[Double]>([])
        let failure = Mutex<String?>(nil)
    }

    /// Opens `count` connections to `/.ws?v=5&ns=<namespace>`, spread over the source addresses
    /// 127.0.0.1, 127.0.0.2, … with at most `perSourceAddress` each (one address has about 28k
    /// ephemeral ports, some of which earlier runs may still hold).
    static func open(
        count: Int, host: String, port: Int, namespace: String, role: Role, tally: Tally, perSourceAddress: Int = 10000
    ) async throws -> [any Channel] {
        var channels: [any Channel] = []
        channels.reserveCapacity(count)
        for index in 0..<count {
            let handler = Handler(
                request: "GET /.ws?v=5&ns=\(namespace) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                role: role, connection: index, tally: tally)
            let source = try SocketAddress(ipAddress: "127.0.0.\(1 + index / perSourceAddress)", port: 0)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(to: source)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
                }
                .connect(host: host, port: port).get()
            channels.append(channel)
        }
        return channels
    }

    /// A text frame from a client, masked with the zero key (payload unchanged).
    static func frame(_ text: String) -> ByteBuffer {
        let payload = Array(text.utf8)
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt8(0x81))
        if payload.count < 126 {
            buffer.writeInteger(UInt8(0x80 | payload.count))
        } else {
            buffer.writeInteger(UInt8(0x80 | 126))
            buffer.writeInteger(UInt16(payload.count))
        }
        buffer.writeInteger(UInt32(0))
        buffer.writeBytes(payload)
        return buffer
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer

        private static let sentMarker = Array(#""sent":"#.utf8)
        private static let responseMarker = Array(#""r":"#.utf8)
        private static let okMarker = Array(#""s":"ok""#.utf8)
        private let request: String
        private let role: Role
        private let connection: Int
        private let tally: Tally
        private var buffer = ByteBuffer()
        private var upgraded = false
        private var handshaken = false
        private var sequence = 0
        private var completed = 0
        private var latencies: [Double] = []
        private var sawInitialData = false

        init(request: String, role: Role, connection: Int, tally: Tally) {
            self.request = request
            self.role = role
            self.connection = connection
            self.tally = tally
        }

        func channelActive(context: ChannelHandlerContext) {
            context.writeAndFlush(NIOAny(ByteBuffer(string: request)), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var incoming = unwrapInboundIn(data)
            buffer.writeBuffer(&incoming)
            if !upgraded {
                guard let end = buffer.readableBytesView.firstRange(of: [13, 10, 13, 10]) else { return }
                buffer.moveReaderIndex(to: end.upperBound)
                upgraded = true
            }
            let now = DispatchTime.now().uptimeNanoseconds
            while let payload = takeFrame() {
                if !handshaken {
                    handshaken = true
                    start(context: context)
                    continue
                }
                receive(payload, at: now, context: context)
            }
            if buffer.readerIndex > 65536 { buffer.discardReadBytes() }
        }

        private func start(context: ChannelHandlerContext) {
            switch role {
            case .writer:
                sendPut(context: context)
            case .listener(let path, _):
                context.writeAndFlush(
                    NIOAny(RealtimeConnections.frame(#"{"t":"d","d":{"r":1,"a":"q","b":{"p":"\#(path)","h":""}}}"#)), promise: nil)
            case .idle:
                tally.ready.withLock { $0 += 1 }
            }
        }

        private func receive(_ payload: ByteBufferView, at now: UInt64, context: ChannelHandlerContext) {
            switch role {
            case .writer(_, let measureFrom, let stopAt):
                guard Self.offset(after: Self.responseMarker, in: payload) != nil else { return }
                guard Self.offset(after: Self.okMarker, in: payload) != nil else {
                    tally.failure.withLock { $0 = "a put failed: \(String(decoding: payload, as: UTF8.self))" }
                    context.close(promise: nil)
                    return
                }
                let clock = ContinuousClock()
                if clock.now >= stopAt {
                    tally.completed.withLock { $0 += completed }
                    context.close(promise: nil)
                    return
                }
                if clock.now >= measureFrom { completed += 1 }
                sendPut(context: context)
            case .listener(_, let deliveries):
                guard let sent = Self.sentTime(in: payload) else { return }
                guard sawInitialData else {
                    sawInitialData = true
                    tally.ready.withLock { $0 += 1 }
                    return
                }
                latencies.append(Double(now &- sent) / 1_000_000)
                if latencies.count == deliveries {
                    tally.latencies.withLock { $0.append(contentsOf: latencies) }
                    tally.finished.withLock { $0 += 1 }
                    context.close(promise: nil)
                }
            case .idle:
                break
            }
        }

        /// The offset just after the first `marker` in `payload`, found without generic
        /// collection code (the load generator must stay cheap).
        private static func offset(after marker: [UInt8], in payload: ByteBufferView) -> Int? {
            payload.withUnsafeBytes { bytes -> Int? in
                guard bytes.count >= marker.count else { return nil }
                for index in 0...(bytes.count - marker.count) where bytes[index] == marker[0] {
                    if bytes[index..<(index + marker.count)].elementsEqual(marker) { return index + marker.count }
                }
                return nil
            }
        }

        /// The digits after `"sent":` in `payload`.
        private static func sentTime(in payload: ByteBufferView) -> UInt64? {
            guard let start = offset(after: sentMarker, in: payload) else { return nil }
            return payload.withUnsafeBytes { bytes in
                var value: UInt64 = 0
                var digit = start
                while digit < bytes.count, bytes[digit] >= 48, bytes[digit] <= 57 {
                    value = value * 10 + UInt64(bytes[digit] - 48)
                    digit += 1
                }
                return value
            }
        }

        private func sendPut(context: ChannelHandlerContext) {
            guard case .writer(let path, _, _) = role else { return }
            sequence += 1
            let message =
                #"{"t":"d","d":{"r":\#(sequence),"a":"p","b":{"p":"\#(path)/c\#(connection)","d":{"client":\#(connection),"sequence":\#(sequence),"payload":"xxx"}}}}"#
            context.writeAndFlush(NIOAny(RealtimeConnections.frame(message)), promise: nil)
        }

        /// Removes one whole server frame (never masked) from the buffer and returns its payload.
        private func takeFrame() -> ByteBufferView? {
            let view = buffer.readableBytesView
            guard view.count >= 2 else { return nil }
            let start = view.startIndex
            var length = Int(view[start + 1] & 0x7F)
            var headerLength = 2
            if length == 126 {
                guard view.count >= 4 else { return nil }
                length = Int(view[start + 2]) << 8 | Int(view[start + 3])
                headerLength = 4
            } else if length == 127 {
                guard view.count >= 10 else { return nil }
                length = (0..<8).reduce(0) { $0 << 8 | Int(view[start + 2 + $1]) }
                headerLength = 10
            }
            guard view.count >= headerLength + length else { return nil }
            let payload = view[(start + headerLength)..<(start + headerLength + length)]
            buffer.moveReaderIndex(forwardBy: headerLength + length)
            return payload
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            tally.failure.withLock { $0 = "\(error)" }
            context.close(promise: nil)
        }
    }
}
