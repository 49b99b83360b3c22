import HearthCore
import Logging
import NIOCore
import ServiceLifecycle

/// One realtime WebSocket connection (`/.ws`): its outbox, and the messages its frame handler
/// received, which ``run()`` serves one after another.
final class RealtimeConnection: Sendable {
    /// A message delivered by the frame handler.
    enum Inbound: Sendable {
        case message(ByteBuffer)
        case oversized(prefix: ByteBuffer)

        var size: Int {
            switch self {
            case .message(let bytes), .oversized(prefix: let bytes): bytes.readableBytes
            }
        }
    }

    /// How many bytes of received messages may wait to be served before the connection stops
    /// reading from its socket.
    static let inboundLimit = 1024 * 1024

    let outbox: Outbox
    /// The opaque id sent in the handshake; clients send it back as `ls` when they reconnect.
    let sessionID: String
    private let namespace: String
    private let database: DatabaseService
    private let sessions: RealtimeSessions
    private let channel: any Channel
    private let logger: Logger
    private let inbound: AsyncStream<Inbound>
    private let inboundContinuation: AsyncStream<Inbound>.Continuation
    private let gate: InboundGate

    /// Must be created on the channel's event loop.
    init(
        channel: any Channel, outbox: Outbox, namespace: String, host: String, database: DatabaseService,
        sessions: RealtimeSessions, logger: Logger
    ) {
        self.channel = channel
        self.namespace = namespace
        self.database = database
        self.sessions = sessions
        self.outbox = outbox
        self.sessionID = Self.makeSessionID()
        self.logger = logger
        (inbound, inboundContinuation) = AsyncStream.makeStream(of: Inbound.self)
        self.gate = InboundGate(channel: channel, limit: Self.inboundLimit)
        sessions.register(sessionID, channel: channel)
        // The handshake goes out at once, before anything else (§3.6).
        outbox.send(RealtimeMessages.handshake(timestamp: NamespaceEngine.now(), host: host, sessionID: sessionID))
    }

    /// Called by the frame handler for each whole message, in order.
    func received(_ message: Inbound) {
        gate.queued(message.size)
        inboundContinuation.yield(message)
    }

    /// Called by the frame handler when the socket closed.
    func inputEnded() {
        inboundContinuation.finish()
    }

    /// Serves the connection's requests until it closes or the server shuts down, then ends
    /// its listens and applies its onDisconnect writes.
    func run() async {
        let engine: NamespaceEngine
        do {
            engine = try await database.namespace(namespace)
        } catch {
            let reason = (error as? DatabaseError)?.message ?? "The database is unavailable."
            outbox.send(RealtimeMessages.shutdown(reason))
            outbox.close()
            sessions.remove(sessionID)
            try? await channel.close()
            return
        }
        var session = RealtimeSession(engine: engine, outbox: outbox, logger: logger)
        await withGracefulShutdownHandler {
            for await message in inbound {
                switch message {
                case .message(let bytes): await session.handle(bytes)
                case .oversized(let prefix): session.handleOversized(prefix: prefix)
                }
                gate.served(message.size)
            }
        } onGracefulShutdown: {
            self.channel.close(promise: nil)
        }
        outbox.close()
        sessions.remove(sessionID)
        await session.disconnect()
    }

    /// 32 characters from `[A-Za-z0-9]`, as clients put the id in URLs unescaped.
    private static func makeSessionID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}
