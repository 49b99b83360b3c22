import Synchronization

/// Tells watchers when a user's tokens stop being valid: the account was deleted or disabled, or
/// its `validSince` moved forward. Database connections use it to drop credentials at once.
final class RevocationFeed: Sendable {
    private struct Watchers {
        var next = 0
        var byUser: [String: [Int: AsyncStream<Void>.Continuation]] = [:]
    }

    private let watchers = Mutex(Watchers())

    /// A stream that yields each time `uid`'s tokens are revoked, until the task reading it ends.
    func revocations(of uid: String) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = watchers.withLock { watchers in
            defer { watchers.next += 1 }
            watchers.byUser[uid, default: [:]][watchers.next] = continuation
            return watchers.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.watchers.withLock { watchers in
                watchers.byUser[uid]?[id] = nil
                if watchers.byUser[uid]?.isEmpty == true { watchers.byUser[uid] = nil }
            }
        }
        return stream
    }

    /// Wakes the watchers of `uids`.
    func publish(_ uids: some Sequence<String>) {
        let continuations = watchers.withLock { watchers in uids.flatMap { watchers.byUser[$0]?.values.map { $0 } ?? [] } }
        for continuation in continuations { continuation.yield() }
    }

    /// Whether changing `old` into `new` (`nil`: no account) revokes the user's tokens.
    static func revoked(from old: UserRecord?, to new: UserRecord?) -> Bool {
        guard let old else { return false }
        guard let new else { return true }
        return (new.disabled && !old.disabled) || (new.validSince ?? 0) > (old.validSince ?? 0)
    }
}
