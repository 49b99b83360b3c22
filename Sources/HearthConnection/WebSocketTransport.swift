import HummingbirdWSClient
import Logging

#if canImport(Network)
    import Network
#endif

/// One WebSocket connection that carries text frames, bridged out of Swift concurrency.
///
/// The socket runs in a task of its own. Received text frames and the end of the connection are
/// reported through `onEvent`, in order, from that task; the owner hops them onto its queue.
/// Frames to send go through an `AsyncStream` that the socket drains, so ``send(_:)`` and
/// ``close()`` may be called from any thread and never block.
final class WebSocketTransport: Sendable {
    /// What the socket reports.
    enum Event: Sendable {
        /// A text frame arrived.
        case frame(String)
        /// The connection ended (or could not be made); `error` says why, when it failed.
        case closed(error: (any Error)?)
    }

    /// The largest WebSocket frame accepted. Realtime frames hold at most 16384 UTF-16 code
    /// units, which is up to three times as many UTF-8 bytes; leave ample room.
    private static let maximumFrameSize = 1 << 20
    /// The largest WebSocket message (frames joined by continuation) accepted.
    private static let maximumMessageSize = 1 << 24

    private let outbound: AsyncStream<String>.Continuation
    private let task: Task<Void, Never>

    /// Starts connecting to `url` at once.
    init(url: String, logger: Logger, onEvent: @escaping @Sendable (Event) -> Void) {
        let (frames, outbound) = AsyncStream.makeStream(of: String.self)
        self.outbound = outbound
        let handler: WebSocketDataHandler<WebSocketClient.Context> = { inbound, writer, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await frame in frames {
                        try await writer.write(.text(frame))
                    }
                }
                group.addTask {
                    for try await message in inbound.messages(maxSize: Self.maximumMessageSize) {
                        if case .text(let text) = message { onEvent(.frame(text)) }
                    }
                }
                // Whichever side ends first (the server closed, or ``close()`` was called) ends
                // the connection.
                try await group.next()
                group.cancelAll()
            }
        }
        task = Task {
            do {
                try await Self.connect(url: url, logger: logger, handler: handler)
                onEvent(.closed(error: nil))
            } catch {
                onEvent(.closed(error: error))
            }
        }
    }

    /// Connects and runs `handler` over the platform's transport: the Network framework on Apple
    /// platforms (what Apple asks of apps there: it brings up the cellular radio and VPN on
    /// demand, which plain sockets do not), sockets elsewhere.
    private static func connect(
        url: String, logger: Logger, handler: @escaping WebSocketDataHandler<WebSocketClient.Context>
    ) async throws {
        let configuration = WebSocketClientConfiguration(maxFrameSize: maximumFrameSize, closeTimeout: .seconds(2))
        #if canImport(Network)
            _ = try await WebSocketClient.connect(
                url: url, configuration: configuration, transportServicesTLSOptions: .options(NWProtocolTLS.Options()), logger: logger,
                handler: handler)
        #else
            try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger, handler: handler)
        #endif
    }

    /// Queues a text frame for sending.
    func send(_ frame: String) {
        outbound.yield(frame)
    }

    /// Closes the connection; frames not yet written are dropped.
    func close() {
        outbound.finish()
        task.cancel()
    }
}
