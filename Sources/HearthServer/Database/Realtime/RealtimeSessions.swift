import NIOCore
import Synchronization

/// The live realtime sessions of a server by session id, so that a client reconnecting with
/// `ls=<id>` ends its previous session at once (protocol §3.6): its onDisconnect writes run now
/// instead of when a half-open socket finally times out.
final class RealtimeSessions: Sendable {
    private let channels = Mutex<[String: any Channel]>([:])

    func register(_ sessionID: String, channel: any Channel) {
        channels.withLock { $0[sessionID] = channel }
    }

    func remove(_ sessionID: String) {
        _ = channels.withLock { $0.removeValue(forKey: sessionID) }
    }

    /// Closes the connection of session `sessionID`, if it is still open.
    func end(_ sessionID: String) {
        channels.withLock { $0.removeValue(forKey: sessionID) }?.close(promise: nil)
    }
}
