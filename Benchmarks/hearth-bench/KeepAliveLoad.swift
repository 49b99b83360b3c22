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

    /// Runs `connections` connections against `host:port` for `duration` after `warmUp`;
    /// returns how many responses with `expectedStatus` arrived in the measured window.
    static func run(
        host: String, port: Int, connections: Int, warmUp: Duration, duration: Duration,
        expectedStatus: Int, request: @escaping RequestBuilder
    ) async throws -> Int {
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
        return counter.completed.withLock { $0 }
    }

    private final class Counter: Sendable {
        let completed = Mutex(0)
        let failure = Mutex<String?>(nil)
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
                    context.close(promise: nil)
                    return
                }
                if now >= measureFrom { completed += 1 }
                sendNext(context: context)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            counter.failure.withLock { $0 = "\(error)" }
            context.close(promise: nil)
        }

        private func sendNext(context: ChannelHandlerContext) {
            sequence += 1
            context.writeAndFlush(NIOAny(request(connection, sequence)), promise: nil)
        }

        /// Removes one complete response from the buffer and returns its status.
        private func takeResponse() -> Int? {
            let view = buffer.readableBytesView
            guard let headEnd = view.firstRange(of: [13, 10, 13, 10]) else { return nil }
            let head = String(decoding: view[view.startIndex..<headEnd.lowerBound], as: UTF8.self)
            let lines = head.split(separator: "\r\n")
            guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ")[1]) else { return nil }
            var length = 0
            for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
                length = Int(line.dropFirst("content-length:".count).trimmingPrefix(" ")) ?? 0
            }
            let total = headEnd.upperBound - view.startIndex + length
            guard buffer.readableBytes >= total else { return nil }
            buffer.moveReaderIndex(forwardBy: total)
            buffer.discardReadBytes()
            return status
        }
    }
}
