import Foundation

/// A child event delivered through ``DatabaseQuery/childEvents(_:)``.
public struct ChildEvent: Sendable {
    /// `.childAdded`, `.childChanged`, `.childRemoved` or `.childMoved`.
    public let type: DataEventType
    public let snapshot: DataSnapshot
    /// The key of the sibling before the child in the query's order (none for removals).
    public let previousSiblingKey: String?
}

/// `AsyncSequence` forms of observing, which Firebase's Apple SDK lacks: each stream observes
/// while it is iterated, ends (removing its observers) when the consuming task is cancelled or
/// stops iterating, and throws the cancel error if the server refuses or revokes the read.
extension DatabaseQuery {
    /// Every value of the location, starting with the current one.
    public var snapshots: AsyncThrowingStream<DataSnapshot, any Error> {
        AsyncThrowingStream { continuation in
            let repo = self.repo
            let handle = observe(
                .value, with: { continuation.yield($0) },
                withCancel: { continuation.finish(throwing: $0) })
            continuation.onTermination = { _ in repo.removeObserver(handle: handle) }
        }
    }

    /// The child events of the query, in the order Firebase raises them (removals, additions,
    /// moves, changes), starting with a `.childAdded` per current child.
    public func childEvents(
        _ types: Set<DataEventType> = [.childAdded, .childChanged, .childRemoved, .childMoved]
    ) -> AsyncThrowingStream<ChildEvent, any Error> {
        AsyncThrowingStream { continuation in
            let repo = self.repo
            let handles = types.filter { $0 != .value }.sorted { $0.rawValue < $1.rawValue }.map { type in
                observe(
                    type,
                    andPreviousSiblingKeyWith: { snapshot, previous in
                        continuation.yield(ChildEvent(type: type, snapshot: snapshot, previousSiblingKey: previous))
                    }, withCancel: { continuation.finish(throwing: $0) })
            }
            continuation.onTermination = { _ in
                for handle in handles { repo.removeObserver(handle: handle) }
            }
        }
    }
}
