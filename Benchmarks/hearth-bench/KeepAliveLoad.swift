import NIOCore
import NIOPosix
import Synchronization

/// A minimal HTTP/1.1 load generator: each connection sends one request, waits for the whole
/// response, and sends the next, until a deadline. It parses only the status line and
/// `Content-Length`, so that the client spends as little CPU as `redis-benchmark` does and the
/// server, not the load generator, is what gets measured.
enum KeepAliveLoad {
    /// Builds the request a connection sends for its `sequence`-th request.
    typealias RequestBuilder = @Sendable (_ connection: Int, _ sequence: Int) -> ByteBuffer

    /// What one run measured: the responses in the measured window, each one's latency (request
    /// sent to response read, in milliseconds), and the longest time in the window during which
    /// no response arrived on any connection (a stall of the server).
    struct Outcome {
        let completed: Int
        let latencies: Percentiles
        let longestStallMilliseconds: Double
    }

    /// Runs `connections` connections against `host:port` for `duration` after `warmUp`;
    /// returns how many responses with `expectedStatus` arrived in the measured window.
    static func run(
        host: String, port: Int, connections: Int, warmUp: Duration, duration: Duration,
        expectedStatus: Int, request: @escaping RequestBuilder
    ) async throws -> Int {
        try await measure(
            host: host, port: port, connections: connections, warmUp: warmUp, duration: duration, expectedStatus: expectedStatus,
            request: request
        ).completed
    }

    /// ``run(host:port:connections:warmUp:duration:expectedStatus:request:)`` with the latencies
    /// and the longest stall.
    static func measure(
        host: String, port: Int, connections: Int, warmUp: Duration, duration: Duration,
        expectedStatus: Int, request: @escaping RequestBuilder
    ) async throws -> Outcome {
        let clock = ContinuousClock()
        let measureFrom = clock.now + warmUp
        let stopAt = measureFrom + duration
        let counter = Counter()
        var channels: [any Channel] = []
        for index in 0..<connections {
            let handler = LoadHandler(
                connection: index, request: request, expectedStatus: expectedStatus, clock: clock,
                measureFrom: measureFrom, stopAt: stopAt, counter: counter)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
                }
                .connect(host: host, port: port).get()
            channels.append(channel)
        }
        for channel in channels {
            try await channel.closeFuture.get()
        }
        if let failure = counter.failure.withLock({ $0 }) { throw BenchError(description: failure) }
        let (latencies, arrivals) = counter.samples.withLock { ($0.latencies, $0.arrivals.sorted()) }
        var longestStall = arrivals.first.map { ($0 - measureFrom) } ?? .zero
        for (earlier, later) in zip(arrivals, arrivals.dropFirst()) { longestStall = max(longestStall, later - earlier) }
        if let last = arrivals.last { longestStall = max(longestStall, stopAt - last) }
        return Outcome(
            completed: counter.completed.withLock { $0 }, latencies: Percentiles(latencies),
            longestStallMilliseconds: milliseconds(longestStall))
    }

    private final class Counter: Sendable {
        let completed = Mutex(0)
        let failure = Mutex<String?>(nil)
        /// Each connection's latencies (ms) and response times in the window, added when it ends.
        let samples = Mutex((latencies: [Double](), arrivals: [ContinuousClock.Instant]()))
    }

    private final class LoadHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let connection: Int
        private let request: RequestBuilder
        private let expectedStatus: Int
        private let clock: ContinuousClock
        private let measureFrom: ContinuousClock.Instant
        private let stopAt: ContinuousClock.Instant
        private let counter: Counter
        private var sequence = 0
        private var completed = 0
        private var buffer = ByteBuffer()
        private var sentAt: ContinuousClock.Instant
        private var latencies: [Double] = []
        private var arrivals: [ContinuousClock.Instant] = []

        init(
            connection: Int, request: @escaping RequestBuilder, expectedStatus: Int, clock: ContinuousClock,
            measureFrom: ContinuousClock.Instant, stopAt: ContinuousClock.Instant, counter: Counter
        ) {
            self.connection = connection
            self.request = request
            self.expectedStatus = expectedStatus
            self.clock = clock
            self.measureFrom = measureFrom
            self.stopAt = stopAt
            self.counter = counter
            sentAt = clock.now
        }

        func channelActive(context: ChannelHandlerContext) {
            sendNext(context: context)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var incoming = unwrapInboundIn(data)
            buffer.writeBuffer(&incoming)
            while let status = takeResponse() {
                guard status == expectedStatus else {
                    counter.failure.withLock { $0 = "expected status \(expectedStatus), got \(status)" }
                    context.close(promise: nil)
                    return
                }
                let now = clock.now
                if now >= stopAt {
                    counter.completed.withLock { $0 += completed }
                    counter.samples.withLock { samples in
                        samples.latencies += latencies
                        samples.arrivals += arrivals
                    }
                    context.close(promise: nil)
                    return
                }
                if now >= measureFrom {
                    completed += 1
                    latencies.append(milliseconds(now - sentAt))
                    arrivals.append(now)
                }
                sendNext(context: context)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            counter.failure.withLock { $0 = "\(error)" }
            context.close(promise: nil)
        }

        private func sendNext(context: ChannelHandlerContext) {
            sequence += 1
            sentAt = clock.now
            context.writeAndFlush(NIOAny(request(connection, sequence)), promise: nil)
        }

        /// Removes one complete response from the buffer and returns its status. Scans raw bytes
        /// (no strings, no generic collection code): the load generator must stay cheap.
        private func takeResponse() -> Int? {
            let parsed = buffer.withUnsafeReadableBytes { bytes -> (status: Int, total: Int)? in
                guard let headEnd = Self.headEnd(in: bytes), headEnd >= 12 else { return nil }
                // "HTTP/1.1 204 …": the status is the three digits after the first space.
                let status = (Int(bytes[9]) - 48) * 100 + (Int(bytes[10]) - 48) * 10 + (Int(bytes[11]) - 48)
                return (status, headEnd + Self.contentLength(in: UnsafeRawBufferPointer(rebasing: bytes[..<headEnd])))
            }
            guard let parsed, buffer.readableBytes >= parsed.total else { return nil }
            buffer.moveReaderIndex(forwardBy: parsed.total)
            buffer.discardReadBytes()
            return parsed.status
        }

        /// The offset just past the blank line that ends the response head, if it arrived.
        private static func headEnd(in bytes: UnsafeRawBufferPointer) -> Int? {
            guard bytes.count >= 4 else { return nil }
            for index in 3..<bytes.count
            where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
                return index + 1
            }
            return nil
        }

        private static let contentLengthName = Array("content-length:".utf8)

        /// The value of the `Content-Length` header in `head`, 0 when there is none.
        private static func contentLength(in head: UnsafeRawBufferPointer) -> Int {
            let name = contentLengthName
            var lineStart = 0
            while lineStart + name.count < head.count {
                var matches = true
                for offset in 0..<name.count where head[lineStart + offset] | 0x20 != name[offset] {
                    matches = false
                    break
                }
                if matches {
                    var index = lineStart + name.count
                    var length = 0
                    while index < head.count, head[index] == 32 { index += 1 }
                    while index < head.count, head[index] >= 48, head[index] <= 57 {
                        length = length * 10 + Int(head[index] - 48)
                        index += 1
                    }
                    return length
                }
                while lineStart < head.count, head[lineStart] != 10 { lineStart += 1 }
                lineStart += 1
            }
            return 0
        }
    }
}
