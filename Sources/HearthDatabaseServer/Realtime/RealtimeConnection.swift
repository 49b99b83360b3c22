import HearthCore
import HearthEdge
import Logging
import NIOCore
import ServiceLifecycle

/// One realtime WebSocket connection (`/.ws`): its outbox, and the messages its frame handler
/// received, which ``run()`` serves one after another — or, for a connection upgrading a
/// long-polling session, hands to that session.
final class RealtimeConnection: WebSocketSession {
    /// What the connection is for.
    enum Role: Sendable {
        /// A session of its own, on a namespace.
        case session(namespace: String)
        /// The new transport of a long-polling session (§3.9): the connection answers the
        /// client's pings itself and passes every other message to the session.
        case upgrading(LongPollSession)
    }

    /// A message delivered by the frame handler.
    enum Inbound: Sendable {
        case message(ByteBuffer)
        case oversized(prefix: ByteBuffer)
        /// Not from the client: the credential the session authenticated with (its
        /// `generation`th) expired or was revoked.
        case credentialLapsed(CredentialFailure, generation: Int)

        var size: Int {
            switch self {
            case .message(let bytes), .oversized(prefix: let bytes): bytes.readableBytes
            case .credentialLapsed: 0
            }
        }
    }

    /// How many bytes of received messages may wait to be served before the connection stops
    /// reading from its socket.
    static let inboundLimit = 1024 * 1024

    let outbox: Outbox
    /// The opaque id sent in the handshake; clients send it back as `ls` when they reconnect.
    let sessionID: String
    private let role: Role
    private let database: DatabaseService
    private let sessions: RealtimeSessions
    private let channel: any Channel
    private let logger: Logger
    private let credentials: any CredentialVerifying
    private let activity: RealtimeActivity
    private let inbound: AsyncStream<Inbound>
    private let inboundContinuation: AsyncStream<Inbound>.Continuation
    private let gate: InboundGate

    /// Must be created on the channel's event loop.
    init(
        channel: any Channel, outbox: Outbox, role: Role, host: String, database: DatabaseService, sessions: RealtimeSessions,
        credentials: any CredentialVerifying, activity: RealtimeActivity, logger: Logger
    ) {
        self.channel = channel
        self.credentials = credentials
        self.activity = activity
        self.role = role
        self.database = database
        self.sessions = sessions
        self.outbox = outbox
        self.sessionID = sessions.makeSessionID()
        self.logger = logger
        (inbound, inboundContinuation) = AsyncStream.makeStream(of: Inbound.self)
        self.gate = InboundGate(channel: channel, limit: Self.inboundLimit)
        switch role {
        case .session:
            sessions.register(sessionID) { channel.close(promise: nil) }
            // The handshake goes out at once, before anything else (§3.6).
            outbox.send(RealtimeMessages.handshake(timestamp: NamespaceEngine.now(), host: host, sessionID: sessionID))
        case .upgrading:
            outbox.send(RealtimeMessages.switchAck)
        }
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
    /// its listens and applies its onDisconnect writes; or, upgrading a long-polling session,
    /// carries that session's messages until it closes.
    func run() async {
        switch role {
        case .session(let namespace): await serve(namespace)
        case .upgrading(let session): await carry(session)
        }
    }

    private func serve(_ namespace: String) async {
        let engine: NamespaceEngine
        let writer: any NamespaceWriter
        do {
            (engine, writer) = try await database.realtimeNamespace(namespace)
        } catch {
            outbox.send(RealtimeMessages.refusal(error))
            // The handshake and the refusal go out before the connection closes.
            let outbox = outbox
            try? await channel.eventLoop.submit { outbox.flush() }.get()
            outbox.close()
            sessions.remove(sessionID)
            try? await channel.close()
            return
        }
        // The namespace closed under the connection (its store lost, a relay's link broken): the
        // client reconnects.
        let channel = channel
        let closeHandler = engine.whenClosed { channel.close(promise: nil) }
        defer { closeHandler.map(engine.forgetCloseHandler) }
        if closeHandler == nil { channel.close(promise: nil) }
        var session = RealtimeSession(
            engine: engine, writer: writer, outbox: outbox, credentials: credentials, activity: activity,
            wake: { [weak self] in self?.received($0) }, logger: logger)
        await withGracefulShutdownHandler {
            for await message in inbound {
                switch message {
                case .message(let bytes): await session.handle(bytes)
                case .oversized(let prefix): session.handleOversized(prefix: prefix)
                case .credentialLapsed(let failure, let generation): await session.credentialLapsed(failure, generation: generation)
                }
                gate.served(message.size)
            }
        } onGracefulShutdown: {
            self.channel.close(promise: nil)
        }
        // The loop also ends when the serving task is cancelled: the socket must not outlive it.
        channel.close(promise: nil)
        outbox.close()
        sessions.remove(sessionID)
        let database = database
        await session.disconnect { try await database.onDisconnectWriter(namespace) }
    }

    /// Carries the messages of the long-polling session this connection upgrades.
    private func carry(_ session: LongPollSession) async {
        await withGracefulShutdownHandler {
            for await message in inbound {
                if case .message(let bytes) = message, case .control(let type)? = try? RealtimeInbound.parse(Array(bytes.readableBytesView))
                {
                    // Pings are answered on the transport they came on; `a` only says the
                    // client is switching.
                    if type == "p" { outbox.send(RealtimeMessages.pong) }
                } else {
                    session.deliver(message)
                }
                gate.served(message.size)
            }
        } onGracefulShutdown: {
            self.channel.close(promise: nil)
        }
        outbox.close()
        session.secondaryEnded()
    }
}
