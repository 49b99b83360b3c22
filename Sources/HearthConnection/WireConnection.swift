import Dispatch
import HearthCore
import Logging

/// One connection to a realtime server at the envelope layer: it reassembles and splits frames,
/// decodes messages, answers control messages, and keeps the socket alive.
///
/// It reports to its owner through `onEvent`, always on `queue`, and never after it closed:
/// events of the socket that arrive after ``close()`` (or after it reported its end) are
/// dropped here. Like its owner, it is `@unchecked Sendable` because all of its state is
/// confined to `queue`; every method must be called there.
final class WireConnection: @unchecked Sendable {
    /// What the connection reports to its owner.
    enum Event {
        /// The handshake arrived: requests may be sent.
        case ready(Handshake)
        /// A data message: a response or a push.
        case message(ServerMessage)
        /// The server sent the client to another host; the connection is closed.
        case redirect(host: String)
        /// The server asked the client to stop reconnecting; the connection is closed.
        case shutdown(reason: String)
        /// The connection ended for any other reason.
        case closed
    }

    /// How long the handshake may take after connecting starts, in seconds.
    static let connectTimeout = 30.0
    /// How long the connection may be silent both ways before a keepalive is sent, in seconds.
    static let keepaliveInterval = 45.0

    /// Distinguishes this connection from earlier and later ones of the same owner.
    let id: Int
    private let queue: DispatchQueue
    private let logger: Logger
    private let onEvent: (WireConnection, Event) -> Void
    private var transport: WebSocketTransport?
    private var assembler = FrameAssembler()
    private var isClosed = false
    private var handshakeReceived = false
    private var lastTraffic = DispatchTime.now()
    private var timer: DispatchWorkItem?

    init(id: Int, queue: DispatchQueue, logger: Logger, onEvent: @escaping (WireConnection, Event) -> Void) {
        self.id = id
        self.queue = queue
        self.logger = logger
        self.onEvent = onEvent
    }

    /// Starts connecting to `url`.
    func open(url: String) {
        logger.debug("connecting", metadata: ["url": "\(url)", "connection": "\(id)"])
        // The socket's task keeps this object until the socket ends, which ``close()`` hastens.
        transport = WebSocketTransport(url: url, logger: logger) { [self, queue] event in
            queue.async { self.handle(event) }
        }
        schedule(after: Self.connectTimeout)
    }

    /// Sends one message, split into frames when it is long.
    func send(_ message: String) {
        guard !isClosed, let transport else { return }
        for frame in FrameSplitter.frames(for: message) {
            transport.send(frame)
        }
        lastTraffic = .now()
    }

    /// Closes the connection without reporting it.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        timer?.cancel()
        timer = nil
        transport?.close()
        transport = nil
    }

    private func handle(_ event: WebSocketTransport.Event) {
        guard !isClosed else { return }
        switch event {
        case .frame(let frame):
            lastTraffic = .now()
            guard let text = assembler.receive(frame) else { return }
            receive(text)
        case .closed(let error):
            if let error {
                logger.debug("connection ended", metadata: ["connection": "\(id)", "error": "\(error)"])
            }
            end(with: .closed)
        }
    }

    private func receive(_ text: String) {
        let message: ServerMessage
        do {
            message = try ServerMessage.decode(text)
        } catch {
            logger.warning("ignoring malformed message from the server", metadata: ["error": "\(error)"])
            return
        }
        switch message {
        case .handshake(let handshake):
            guard !handshakeReceived else { return }
            handshakeReceived = true
            schedule(after: Self.keepaliveInterval)
            onEvent(self, .ready(handshake))
        case .redirect(let host):
            end(with: .redirect(host: host))
        case .shutdown(let reason):
            logger.warning("server asked the client to stop reconnecting: \(reason)")
            end(with: .shutdown(reason: reason))
        case .serverError(let text):
            logger.warning("server error: \(text)")
        case .ignoredControl:
            break
        case .response, .push:
            onEvent(self, .message(message))
        }
    }

    private func end(with event: Event) {
        close()
        onEvent(self, event)
    }

    /// Before the handshake the timer is the connect timeout; after it, the keepalive check.
    private func schedule(after seconds: Double) {
        timer?.cancel()
        let work = DispatchWorkItem { [weak self] in self?.timerFired() }
        timer = work
        queue.asyncAfter(deadline: .now() + seconds, execute: work)
    }

    private func timerFired() {
        guard !isClosed else { return }
        guard handshakeReceived else {
            logger.debug("no handshake in time", metadata: ["connection": "\(id)"])
            end(with: .closed)
            return
        }
        let silence = Double(DispatchTime.now().uptimeNanoseconds - lastTraffic.uptimeNanoseconds) / 1e9
        if silence >= Self.keepaliveInterval {
            send(ClientMessage.keepalive)
            schedule(after: Self.keepaliveInterval)
        } else {
            schedule(after: Self.keepaliveInterval - silence)
        }
    }
}
