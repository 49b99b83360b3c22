import Foundation
import HearthConnection
import HearthCore
import HearthTestSupport
import HearthTesting
import Logging

/// What a test client saw, in order: delegate calls and completions.
enum Observed: Sendable, Equatable {
    case connected(offset: Int64)
    case disconnected
    case data(path: String, value: JSONValue, isMerge: Bool, tag: Int?)
    case listenRevoked(path: String, query: JSONValue?)
    case authRevoked(status: String)
    case securityDebug(String)
    /// A write or onDisconnect completion, named by the test.
    case completed(String, status: String)
    case listenAnswered(String, status: String, warnings: [String])
    case got(String, Result<JSONValue, GetFailure>)
}

/// A ``PersistentConnection`` driven from async tests: calls hop onto its queue, and everything
/// it reports lands in ``events``.
final class TestClient: PersistentConnectionDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "hearth-connection-test")
    let connection: PersistentConnection
    let events = Mailbox<Observed>()

    init(port: Int, namespace: String) {
        var logger = Logger(label: "hearth-connection-test")
        logger.logLevel = ProcessInfo.processInfo.environment["HEARTH_CONNECTION_TRACE"] == nil ? .warning : .trace
        connection = PersistentConnection(
            target: ConnectionTarget(host: "127.0.0.1:\(port)", namespace: namespace, secure: false), queue: queue,
            logger: logger)
        queue.sync { connection.delegate = self }
    }

    convenience init(server: TestHearth) {
        self.init(port: server.port, namespace: server.namespace)
    }

    deinit {
        let connection = connection
        queue.async { connection.shutdown() }
    }

    /// Runs `body` on the connection's queue and returns its result.
    func run<T: Sendable>(_ body: @escaping @Sendable (PersistentConnection) -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body(self.connection)) }
        }
    }

    /// Opens the connection and waits for its handshake.
    func connect() async throws {
        await run { $0.open() }
        try await events.take("handshake") { if case .connected = $0 { true } else { false } }
    }

    func put(_ label: String, _ path: String, _ value: JSONValue, hash: String? = nil) async {
        let events = events
        await run { $0.put(path: path.db, data: value, hash: hash) { status, _ in events.post(.completed(label, status: status)) } }
    }

    func merge(_ label: String, _ path: String, _ value: JSONValue) async {
        let events = events
        await run { $0.merge(path: path.db, data: value) { status, _ in events.post(.completed(label, status: status)) } }
    }

    func listen(_ label: String, _ path: String, query: JSONValue? = nil, tag: Int? = nil) async {
        let events = events
        await run {
            $0.listen(path: path.db, query: query, tag: tag, hash: { "" }) { status, warnings in
                events.post(.listenAnswered(label, status: status, warnings: warnings))
            }
        }
    }

    func get(_ label: String, _ path: String) async {
        let events = events
        await run { $0.get(path: path.db, query: nil) { events.post(.got(label, $0)) } }
    }

    /// Waits for the completion named `label` and returns its status.
    func status(of label: String) async throws -> String {
        let event = try await events.take("completion of \(label)") {
            if case .completed(label, _) = $0 { true } else { false }
        }
        guard case .completed(_, let status) = event else { return "" }
        return status
    }

    /// Waits for the answer to the listen named `label` and returns its status.
    func listenStatus(of label: String) async throws -> String {
        let event = try await events.take("answer to listen \(label)") {
            if case .listenAnswered(label, _, _) = $0 { true } else { false }
        }
        guard case .listenAnswered(_, let status, _) = event else { return "" }
        return status
    }

    /// Waits for a data push at `path` whose value is `value`.
    func data(at path: String, _ value: JSONValue) async throws {
        try await events.take("data \(JSONWriter.string(value)) at \(path)") {
            if case .data(path, value, _, _) = $0 { true } else { false }
        }
    }

    func waitUntilConnected() async throws {
        try await events.take("handshake") { if case .connected = $0 { true } else { false } }
    }

    func waitUntilDisconnected() async throws {
        try await events.take("disconnection") { $0 == .disconnected }
    }

    // MARK: PersistentConnectionDelegate

    func connection(
        _ connection: PersistentConnection, didReceiveData data: JSONValue, at path: DatabasePath, isMerge: Bool, tag: Int?
    ) {
        events.post(.data(path: path.description, value: data, isMerge: isMerge, tag: tag))
    }

    func connection(_ connection: PersistentConnection, didRevokeListenAt path: DatabasePath, query: JSONValue?) {
        events.post(.listenRevoked(path: path.description, query: query))
    }

    func connectionDidConnect(_ connection: PersistentConnection, serverTimeOffset milliseconds: Int64) {
        events.post(.connected(offset: milliseconds))
    }

    func connectionDidDisconnect(_ connection: PersistentConnection) {
        events.post(.disconnected)
    }

    func connection(_ connection: PersistentConnection, didRevokeAuth status: String, reason: String?) {
        events.post(.authRevoked(status: status))
    }

    func connection(_ connection: PersistentConnection, securityDebug message: String) {
        events.post(.securityDebug(message))
    }
}

extension String {
    /// The database path this text names.
    var db: DatabasePath {
        // Test paths are literals known to be valid.
        try! DatabasePath(self)
    }
}

/// Parses JSON text written in a test.
func json(_ text: String) -> JSONValue {
    try! JSONParser.parse(text)
}
