import Synchronization

/// The live long-polling sessions of a server by id: polls find theirs here, and so does a
/// WebSocket that comes to upgrade one (`/.ws?s=<id>`).
final class LongPollSessions: Sendable {
    private let sessions = Mutex<[String: LongPollSession]>([:])

    subscript(id: String) -> LongPollSession? {
        sessions.withLock { $0[id] }
    }

    func add(_ session: LongPollSession) {
        sessions.withLock { $0[session.id] = session }
    }

    func remove(_ session: LongPollSession) {
        _ = sessions.withLock { $0.removeValue(forKey: session.id) }
    }
}
