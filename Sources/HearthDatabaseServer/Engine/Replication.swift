import HearthCore

/// What one namespace's engine keeps for relays (``NamespaceEngine``).
///
/// On the owner: the links of the relays that follow the namespace, each an `AsyncStream`
/// continuation fed every durable batch in commit order, and the durable tree (what the last
/// commit made durable: the tree in memory may hold writes still committing), which a new
/// relay starts from. A relay that falls ``followerBuffer`` messages behind is dropped; it
/// starts again from a new snapshot.
///
/// On a relay's replica: the forwarded writes waiting for the replica to reach the sequence
/// number their owner committed them at.
struct Replication {
    /// Messages one relay may have unread before it is dropped.
    static let followerBuffer = 4096

    /// The tree as of the last commit; `nil` when the namespace is never replicated (embedded
    /// storage), so that no older tree outlives its pages.
    private(set) var durableTree: Node?
    private var followers: [Int: AsyncStream<ReplicationMessage>.Continuation] = [:]
    private var nextFollower = 0
    private var waiters: [(sequence: Int64, continuation: CheckedContinuation<Void, Never>)] = []
    /// The namespace closed: no relay may follow it, and no write waits.
    private(set) var isFinished = false

    init(durableTree: Node?) {
        self.durableTree = durableTree
    }

    /// Adds a relay's link; returns its number for ``remove(_:)``.
    mutating func add(_ follower: AsyncStream<ReplicationMessage>.Continuation) -> Int {
        nextFollower += 1
        followers[nextFollower] = follower
        return nextFollower
    }

    mutating func remove(_ number: Int) {
        followers[number] = nil
    }

    /// Sends `batch`, just made durable, to every relay, and makes `tree` the durable tree;
    /// returns the durable tree it replaces, which the caller frees away from its actor (it may
    /// hold a large subtree the batch replaced).
    mutating func publish(_ batch: @autoclosure () -> ReplicatedBatch, tree: Node) -> Node? {
        guard let previous = durableTree else { return nil }
        durableTree = tree
        if !followers.isEmpty { send(.batch(batch())) }
        return previous
    }

    /// Sends the rules stored now to every relay.
    mutating func publish(rules: String) {
        send(.rules(rules))
    }

    private mutating func send(_ message: ReplicationMessage) {
        for (number, follower) in followers {
            if case .dropped = follower.yield(message) {
                // Too far behind: the relay ends, and starts again from a snapshot.
                follower.finish()
                followers[number] = nil
            }
        }
    }

    /// Ends every relay's link (the namespace closes).
    mutating func finish() {
        isFinished = true
        for follower in followers.values { follower.finish() }
        followers = [:]
        for waiter in waiters { waiter.continuation.resume() }
        waiters = []
    }

    /// Resumes `continuation` once the replica has reached write `sequence`.
    mutating func wait(for sequence: Int64, _ continuation: CheckedContinuation<Void, Never>) {
        waiters.append((sequence, continuation))
    }

    /// Resumes the waiters for writes up to `sequence`, which the replica has reached.
    mutating func reached(_ sequence: Int64) {
        guard !waiters.isEmpty else { return }
        let ready = waiters.filter { $0.sequence <= sequence }
        waiters.removeAll { $0.sequence <= sequence }
        for waiter in ready { waiter.continuation.resume() }
    }
}
