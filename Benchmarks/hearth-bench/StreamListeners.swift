import Dispatch
import NIOCore
import NIOPosix
import Synchronization

/// Many raw event-stream connections that time each delivery.
///
/// Each connection sends one `GET` with `Accept: text/event-stream` and then only scans the bytes
/// it receives for `"sent":<nanoseconds>`, the send time the writer embeds in every value, so the
/// listeners cost little CPU and the server's delivery latency is what gets measured.
final class StreamListeners: Sendable {
    private let latencies = Mutex<[Double]>([])
    private let started = Mutex(0)
    private let finished = Mutex(0)

    var connectedCount: Int { started.withLock { $0 } }
    var finishedCount: Int { finished.withLock { $0 } }
    var recorded: [Double] { latencies.withLock { $0 } }

    /// Opens `count` streams on `path`; each stops after `deliveries` timed events.
    func open(count: Int, host: String, port: Int, path: String, deliveries: Int) async throws -> [any Channel] {
        var channels: [any Channel] = []
        for _ in 0..<count {
            let handler = ListenerHandler(
                owner: self, request: "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nAccept: text/event-stream\r\n\r\n", deliveries: deliveries)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
                }
                .connect(host: host, port: port).get()
            channels.append(channel)
        }
        return channels
    }

    fileprivate func record(_ values: [Double]) {
        latencies.withLock { $0.append(contentsOf: values) }
        finished.withLock { $0 += 1 }
    }

    fileprivate func markStarted() {
        started.withLock { $0 += 1 }
    }

    private final class ListenerHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer

        private static let marker = Array("\"sent\":".utf8)
        private let owner: StreamListeners
        private let request: String
        private let deliveries: Int
        private var buffer = ByteBuffer()
        private var values: [Double] = []
        private var sawFirst = false

        init(owner: StreamListeners, request: String, deliveries: Int) {
            self.owner = owner
            self.request = request
            self.deliveries = deliveries
            values.reserveCapacity(deliveries)
        }

        func channelActive(context: ChannelHandlerContext) {
            context.writeAndFlush(NIOAny(ByteBuffer(string: request)), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let now = DispatchTime.now().uptimeNanoseconds
            var incoming = unwrapInboundIn(data)
            buffer.writeBuffer(&incoming)
            while let sent = takeSentTime() {
                if !sawFirst {
                    // The first put carries the value written before the run: the stream is live.
                    sawFirst = true
                    owner.markStarted()
                    continue
                }
                values.append(Double(now &- sent) / 1_000_000)
                if values.count == deliveries {
                    owner.record(values)
                    context.close(promise: nil)
                    return
                }
            }
        }

        /// Finds the next `"sent":<digits>` in the buffer and consumes up to its end.
        private func takeSentTime() -> UInt64? {
            let view = buffer.readableBytesView
            guard let range = view.firstRange(of: Self.marker) else {
                let keep = min(view.count, Self.marker.count)
                buffer.moveReaderIndex(forwardBy: view.count - keep)
                buffer.discardReadBytes()
                return nil
            }
            var value: UInt64 = 0
            var index = range.upperBound
            while index < view.endIndex, view[index] >= 48, view[index] <= 57 {
                value = value * 10 + UInt64(view[index] - 48)
                index += 1
            }
            guard index < view.endIndex else { return nil }  // digits may continue in the next read
            buffer.moveReaderIndex(forwardBy: index - view.startIndex)
            return value
        }
    }
}
