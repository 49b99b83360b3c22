import Metrics
import Synchronization

/// The live realtime sessions of a server by session id, so that a client reconnecting with
/// `ls=<id>` ends its previous session at once (protocol §3.6): its onDisconnect writes run now
/// instead of when a half-open socket or an abandoned long-poll session finally times out.
///
/// `count` follows how many are live.
final class RealtimeSessions: Sendable {
    private let enders = Mutex<[String: @Sendable () -> Void]>([:])
    private let count: Meter

    init(count: Meter) {
        self.count = count
    }

    /// Registers a session and how to end it.
    func register(_ sessionID: String, end: @escaping @Sendable () -> Void) {
        enders.withLock { $0[sessionID] = end }
        count.increment()
    }

    func remove(_ sessionID: String) {
        _ = take(sessionID)
    }

    /// A new session id (or long-poll password): 32 characters from `[A-Za-z0-9]`, as clients
    /// put it in URLs unescaped.
    static func makeID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    /// Ends session `sessionID`, if it is still live.
    func end(_ sessionID: String) {
        take(sessionID)?()
    }

    private func take(_ sessionID: String) -> (@Sendable () -> Void)? {
        guard let ender = enders.withLock({ $0.removeValue(forKey: sessionID) }) else { return nil }
        count.decrement()
        return ender
    }
}
