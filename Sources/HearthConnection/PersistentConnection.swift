import Dispatch
import Foundation
import HearthCore
import Logging

/// The client's connection to a realtime database server: it connects, reconnects with backoff,
/// authenticates, and keeps listens, writes, reads and onDisconnect requests across connections
/// (protocol §3, §4, §17.10).
///
/// Thread safety: the connection is confined to `queue`. Every method and property must be used
/// on that queue, and every completion and delegate call runs on it. It is `@unchecked Sendable`
/// only so that its socket can hop events onto the queue; its state is guarded by the queue
/// alone, with no locks.
///
/// Completions run in response order; one is never dropped except by ``shutdown()``:
/// - a put or merge completes when the server answers it, however many reconnections that takes;
///   a put sent with a hash (a transaction) completes with `disconnect` if the connection drops
///   while it is on the wire, and ``purgeOutstandingWrites()`` completes queued writes with
///   `write_canceled`;
/// - an onDisconnect request completes when answered, or with `disconnect` when the connection
///   that carried it drops first;
/// - a listen's completion runs each time the listen is answered: once per connection that sent
///   it (a reconnection sends every listen again);
/// - a read (`get`) completes when answered, or fails with ``GetFailure/offline`` after
///   ``getOfflineTimeout`` seconds without a connection to send it on.
public final class PersistentConnection: @unchecked Sendable {
    /// How long a read waits for a connection before it fails, in seconds.
    public static let getOfflineTimeout = 3.0

    /// The server and namespace this connection serves.
    public let target: ConnectionTarget
    /// Receives pushes and connection changes.
    public weak var delegate: (any PersistentConnectionDelegate)?

    let queue: DispatchQueue
    let logger: Logger

    /// Where the connection stands.
    enum Phase {
        case disconnected
        /// The socket is opening; no handshake yet.
        case connecting(WireConnection)
        /// The handshake arrived; restoring waits for the answer to `auth`.
        case authenticating(WireConnection)
        /// Restored: requests go out as they are made.
        case connected(WireConnection)

        var wire: WireConnection? {
            switch self {
            case .disconnected: nil
            case .connecting(let wire), .authenticating(let wire), .connected(let wire): wire
            }
        }
    }

    /// Why the connection does not connect; it connects when there is no reason left.
    enum InterruptReason: Hashable {
        /// ``open()`` was not called yet.
        case notOpened
        /// ``interrupt()``.
        case user
        /// The server sent a shutdown control message.
        case serverKill
        /// ``shutdown()``: for good.
        case shutdown
    }

    var phase = Phase.disconnected
    var interruptReasons: Set<InterruptReason> = [.notOpened]
    var retry = RetryPolicy()
    var pendingReconnect: DispatchWorkItem?
    /// The host to connect to: the target's, until a handshake or a redirect names another.
    var host: String
    /// The session id of the last handshake, sent as `ls` on the next connection.
    var lastSessionID: String?
    /// When the current connection's handshake arrived.
    var connectedAt: DispatchTime?
    var lastConnectionID = 0
    var nextRequestNumber = 1
    /// What to do with each response, by request number; emptied when a connection ends.
    var responseHandlers: [Int: (_ status: String, _ data: JSONValue) -> Void] = [:]
    var requests = OutstandingRequests()
    var authToken: String?
    /// The server refused the token: wait for ``setAuthToken(_:)`` before connecting again.
    var awaitingToken = false
    /// Counts `auth` and `unauth` requests; only the latest one's answer matters.
    var authAttempt = 0

    /// A connection to `target`, idle until ``open()``.
    public init(target: ConnectionTarget, queue: DispatchQueue, logger: Logger) {
        self.target = target
        self.queue = queue
        self.logger = logger
        self.host = target.host
    }

    /// Whether a handshake was received on the current connection (`.info/connected`).
    public var isConnected: Bool {
        dispatchPrecondition(condition: .onQueue(queue))
        switch phase {
        case .authenticating, .connected: return true
        case .disconnected, .connecting: return false
        }
    }

    /// Whether requests go out as they are made (connected and restored).
    var isRestored: Bool {
        if case .connected = phase { return true }
        return false
    }

    // MARK: Lifecycle

    /// Starts connecting; from then on the connection reconnects with backoff whenever it is
    /// lost, unless interrupted.
    public func open() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard interruptReasons.remove(.notOpened) != nil else { return }
        scheduleReconnect()
    }

    /// Goes offline (`goOffline()`): closes the connection, with the consequences of a lost one,
    /// and stays offline until ``resume()``. Requests keep queueing meanwhile.
    public func interrupt() {
        dispatchPrecondition(condition: .onQueue(queue))
        interruptReasons.insert(.user)
        stopConnecting()
    }

    /// Goes online again (`goOnline()`), also after a server shutdown message: reconnects at
    /// once, with backoff starting over.
    public func resume() {
        dispatchPrecondition(condition: .onQueue(queue))
        interruptReasons.remove(.user)
        interruptReasons.remove(.serverKill)
        retry.signalSuccess()
        scheduleReconnect()
    }

    /// Closes the connection for good. Outstanding requests are never completed (except reads,
    /// which fail as offline).
    public func shutdown() {
        dispatchPrecondition(condition: .onQueue(queue))
        interruptReasons.insert(.shutdown)
        stopConnecting()
    }

    private func stopConnecting() {
        pendingReconnect?.cancel()
        pendingReconnect = nil
        if phase.wire != nil { connectionLost() }
    }

    /// Arranges the next connection attempt, unless one is under way or nothing should connect.
    func scheduleReconnect() {
        guard interruptReasons.isEmpty, !awaitingToken, phase.wire == nil, pendingReconnect == nil else { return }
        let delay = retry.nextDelay()
        let attempt = DispatchWorkItem { [weak self] in
            guard let self else { return }
            pendingReconnect = nil
            connect()
        }
        pendingReconnect = attempt
        queue.asyncAfter(deadline: .now() + delay, execute: attempt)
    }

    private func connect() {
        guard interruptReasons.isEmpty, !awaitingToken, phase.wire == nil else { return }
        lastConnectionID += 1
        let wire = WireConnection(id: lastConnectionID, queue: queue, logger: logger) { [weak self] wire, event in
            self?.handle(event, from: wire)
        }
        phase = .connecting(wire)
        wire.open(url: target.webSocketURL(host: host, lastSessionID: lastSessionID))
    }

    private func handle(_ event: WireConnection.Event, from wire: WireConnection) {
        // Only the current connection may change state; a closed one never reports anyway.
        guard wire.id == phase.wire?.id else { return }
        switch event {
        case .ready(let handshake):
            didHandshake(handshake, on: wire)
        case .message(let message):
            receive(message)
        case .redirect(let newHost):
            logger.debug("redirected", metadata: ["host": "\(newHost)"])
            host = newHost
            retry.signalSuccess()
            connectionLost()
        case .shutdown:
            interruptReasons.insert(.serverKill)
            connectionLost()
        case .closed:
            connectionLost()
        }
    }

    private func didHandshake(_ handshake: Handshake, on wire: WireConnection) {
        let offset = handshake.timestamp - Int64((Date().timeIntervalSince1970 * 1000).rounded())
        if let newHost = handshake.host, !newHost.isEmpty { host = newHost }
        if let sessionID = handshake.sessionID { lastSessionID = sessionID }
        connectedAt = .now()
        phase = .authenticating(wire)
        if let authToken {
            sendAuth(authToken)
        } else {
            restore()
        }
        delegate?.connectionDidConnect(self, serverTimeOffset: offset)
    }

    /// Sends what the connection keeps, once authenticated (the Apple SDK's order, §17.10.3):
    /// listens, writes, reads, then onDisconnect requests.
    func restore() {
        guard case .authenticating(let wire) = phase else { return }
        phase = .connected(wire)
        for listen in requests.orderedListens { sendListen(listen) }
        for write in requests.writes { sendWrite(write) }
        for get in requests.unsentGets { sendGet(get.id) }
        for request in requests.onDisconnects where !request.isSent { sendOnDisconnect(request) }
    }

    /// Ends the current connection (closing it if still open) and settles what it carried,
    /// then schedules the next one.
    func connectionLost() {
        let wasConnected = isConnected
        phase.wire?.close()
        phase = .disconnected
        responseHandlers = [:]
        if let connectedAt,
            Double(DispatchTime.now().uptimeNanoseconds - connectedAt.uptimeNanoseconds) / 1e9 > RetryPolicy.successfulConnectionDuration
        {
            retry.signalSuccess()
        }
        connectedAt = nil
        let dropped = requests.connectionLost()
        for get in requests.unsentGets where get.offlineTimeout == nil { startOfflineTimeout(forGet: get.id) }
        scheduleReconnect()
        for write in dropped.writes { write.completion("disconnect", nil) }
        for request in dropped.onDisconnects { request.completion("disconnect", nil) }
        if wasConnected { delegate?.connectionDidDisconnect(self) }
    }

    // MARK: Sending

    /// Sends a request on the current connection; `onResponse` runs with its answer.
    func sendRequest(_ action: RequestAction, body: JSONValue, onResponse: ((_ status: String, _ data: JSONValue) -> Void)?) {
        guard let wire = phase.wire else { return }
        let number = nextRequestNumber
        nextRequestNumber += 1
        if let onResponse { responseHandlers[number] = onResponse }
        wire.send(ClientMessage.request(number: number, action: action, body: body))
    }
}
