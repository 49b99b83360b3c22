import Dispatch
import Foundation
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
        /// Signs in as user `u<connection>` (an unsigned emulator token), then writes
        /// `/users/u<connection>/items/i<n>` = `{"title": …}` in a loop as `writer` does: the
        /// workload of the tutorial rules.
        case userWriter(measureFrom: ContinuousClock.Instant, stopAt: ContinuousClock.Instant)
        /// Signs in as user `u<connection>`, then listens to and unlistens from
        /// `/users/u<connection>/items/i<n>` in a loop, counting the listens answered.
        case userListener(measureFrom: ContinuousClock.Instant, stopAt: ContinuousClock.Instant)
        /// Does nothing: an idle connection.
        case idle

        /// When the loop of a looping role measures and stops.
        var window: (measureFrom: ContinuousClock.Instant, stopAt: ContinuousClock.Instant)? {
            switch self {
            case .writer(_, let measureFrom, let stopAt), .userWriter(let measureFrom, let stopAt),
                .userListener(let measureFrom, let stopAt):
                (measureFrom, stopAt)
            case .listener, .idle: nil
            }
        }
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
    /// ephemeral ports, some of which earlier runs may still hold). Connections are numbered from
    /// `firstConnection`, which places them among the source addresses when several calls share
    /// them.
    static func open(
        count: Int, host: String, port: Int, namespace: String, role: Role, tally: Tally, perSourceAddress: Int = 10000,
        firstConnection: Int = 0
    ) async throws -> [any Channel] {
        var channels: [any Channel] = []
        channels.reserveCapacity(count)
        for index in firstConnection..<firstConnection + count {
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

    /// An unsigned ID token for `uid`, as Firebase SDKs build for emulators.
    static func unsignedToken(uid: String) -> String {
        func encode(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
        }
        let payload =
            #"{"sub":"\#(uid)","user_id":"\#(uid)","aud":"bench","iat":0,"exp":4102444800,"firebase":{"sign_in_provider":"custom"}}"#
        return encode(#"{"alg":"none","type":"JWT"}"#) + "." + encode(payload) + "."
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
        private var signedIn = false
        /// A user listener alternates a listen and its unlisten; true while the unlisten is out.
        private var unlistening = false

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
                signedIn = true  // nothing to sign in: every response counts
                sendPut(context: context)
            case .userWriter, .userListener:
                let token = RealtimeConnections.unsignedToken(uid: "u\(connection)")
                context.writeAndFlush(
                    NIOAny(RealtimeConnections.frame(#"{"t":"d","d":{"r":0,"a":"auth","b":{"cred":"\#(token)"}}}"#)), promise: nil)
            case .listener(let path, _):
                context.writeAndFlush(
                    NIOAny(RealtimeConnections.frame(#"{"t":"d","d":{"r":1,"a":"q","b":{"p":"\#(path)","h":""}}}"#)), promise: nil)
            case .idle:
                tally.ready.withLock { $0 += 1 }
            }
        }

        private func receive(_ payload: ByteBufferView, at now: UInt64, context: ChannelHandlerContext) {
            switch role {
            case .writer, .userWriter, .userListener:
                guard let (measureFrom, stopAt) = role.window, Self.offset(after: Self.responseMarker, in: payload) != nil else {
                    return
                }
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
                if case .userListener = role, signedIn {
                    unlistening.toggle()
                    if unlistening {
                        if clock.now >= measureFrom { completed += 1 }
                        sendRequest("n", path: userItem, context: context)
                        return
                    }
                } else if signedIn, clock.now >= measureFrom {
                    completed += 1
                }
                signedIn = true
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

        /// The next request of a looping role.
        private func sendPut(context: ChannelHandlerContext) {
            sequence += 1
            switch role {
            case .writer(let path, _, _):
                let message =
                    #"{"t":"d","d":{"r":\#(sequence),"a":"p","b":{"p":"\#(path)/c\#(connection)","d":{"client":\#(connection),"sequence":\#(sequence),"payload":"xxx"}}}}"#
                context.writeAndFlush(NIOAny(RealtimeConnections.frame(message)), promise: nil)
            case .userWriter:
                let message =
                    #"{"t":"d","d":{"r":\#(sequence),"a":"p","b":{"p":"\#(userItem)","d":{"title":"item \#(sequence)"}}}}"#
                context.writeAndFlush(NIOAny(RealtimeConnections.frame(message)), promise: nil)
            case .userListener:
                sendRequest("q", path: userItem, context: context)
            case .listener, .idle:
                break
            }
        }

        private var userItem: String { "/users/u\(connection)/items/i\(sequence)" }

        private func sendRequest(_ action: String, path: String, context: ChannelHandlerContext) {
            let message = #"{"t":"d","d":{"r":\#(sequence),"a":"\#(action)","b":{"p":"\#(path)","h":""}}}"#
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
