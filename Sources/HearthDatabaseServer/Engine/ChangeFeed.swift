import HearthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The locations each durable batch of a namespace changed, for followers that want to know
/// *where* data changed without receiving it (the console refreshes only what it shows). A
/// follower that falls behind loses the oldest batches it has not read, never the newest; with
/// no follower, publishing costs one check.
struct ChangeFeed {
    /// Batches one follower may have unread before the oldest are dropped.
    static let followerBuffer = 256

    private var followers: [UUID: AsyncStream<[DatabasePath]>.Continuation] = [:]

    var isFollowed: Bool { !followers.isEmpty }

    mutating func add(_ id: UUID, _ continuation: AsyncStream<[DatabasePath]>.Continuation) {
        followers[id] = continuation
    }

    mutating func remove(_ id: UUID) {
        followers[id] = nil
    }

    func publish(_ paths: [DatabasePath]) {
        guard !followers.isEmpty, !paths.isEmpty else { return }
        for follower in followers.values { follower.yield(paths) }
    }

    /// Ends every follower's stream (the namespace closes).
    mutating func finish() {
        for follower in followers.values { follower.finish() }
        followers = [:]
    }
}

extension NamespaceEngine {
    /// The locations every durable batch changes from now on, in commit order, until the
    /// namespace closes or the stream is dropped.
    public func followChanges() -> AsyncStream<[DatabasePath]> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(
            of: [DatabasePath].self, bufferingPolicy: .bufferingNewest(ChangeFeed.followerBuffer))
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stopFollowing(id) }
        }
        changeFeed.add(id, continuation)
        return stream
    }

    private func stopFollowing(_ id: UUID) {
        changeFeed.remove(id)
    }
}
