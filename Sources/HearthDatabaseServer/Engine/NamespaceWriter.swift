import HearthCore
import HearthEdge

/// Where a realtime session's writes go: its namespace's ``NamespaceEngine`` on the node that
/// owns the namespace, or that node, through a relay's link (``RelayWriter``).
///
/// Each method takes the write in the order it is called and answers once the write is
/// durable and its events reached this node's listeners, so that a session's own listens see a
/// write before its `ok`. A write refused at once (rules, invalid data) may throw instead.
protocol NamespaceWriter: Sendable {
    /// A set, or with a precondition a compare-and-set; `completion` learns whether it was
    /// written.
    func set(
        _ path: DatabasePath, _ value: WriteValue, ifMatch precondition: WritePrecondition?, as caller: Caller,
        then completion: @escaping @Sendable (Result<WriteAcceptance, DatabaseError>) -> Void
    ) async throws(DatabaseError)

    /// A multi-path update below `path`.
    func update(
        _ path: DatabasePath, _ entries: [(DatabasePath, WriteValue)], as caller: Caller,
        then completion: @escaping DurabilityHandler
    ) async throws(DatabaseError)

    /// Queued writes (onDisconnect operations), as one batch; returns once they are durable.
    func apply(_ writes: [QueuedWrite], as caller: Caller) async throws(DatabaseError)

    /// Whether writes that failed with `failure` surely did not land, and may be made again
    /// elsewhere.
    func failedWithoutLanding(_ failure: DatabaseError) -> Bool
}

/// Whether a set was written, or refused because its precondition did not hold.
enum WriteAcceptance: Sendable, Equatable {
    case written
    case preconditionFailed
}

extension NamespaceEngine: NamespaceWriter {
    /// Only a commit refused by the fencing (another node took the namespace over) surely did
    /// not land: one that failed otherwise (PostgreSQL out of reach) may have.
    nonisolated func failedWithoutLanding(_ failure: DatabaseError) -> Bool {
        isFenced.load(ordering: .acquiring)
    }
}
