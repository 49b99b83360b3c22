import HearthCore

/// One write of a namespace as a relay replays it: how it was made (so that its listeners get
/// the events the owner's got: one merge for a multi-path update) and the subtrees it left.
struct ReplicatedWrite: Sendable {
    /// Where the write applied, and the locations a multi-path update replaced.
    struct Shape: Sendable {
        let path: DatabasePath
        /// `nil` for a set.
        let mergedLocations: [DatabasePath]?

        init(path: DatabasePath, mergedLocations: [DatabasePath]?) {
            self.path = path
            self.mergedLocations = mergedLocations
        }

        init(_ applied: AppliedWrite) {
            path = applied.path
            switch applied.kind {
            case .set: mergedLocations = nil
            case .merge(let locations): mergedLocations = locations
            }
        }
    }

    let shape: Shape
    /// Each location the write replaced, in order, with its node after the write.
    let changes: [(path: DatabasePath, after: Node)]

    /// The tree `before` becomes with this write.
    func applied(to before: Node) -> AppliedWrite {
        var after = before
        for change in changes { after = after.updatingChild(at: change.path, with: change.after) }
        let kind: AppliedWrite.Kind = shape.mergedLocations.map { .merge($0) } ?? .set
        return AppliedWrite(path: shape.path, kind: kind, before: before, after: after)
    }
}

/// The writes of one durable batch of a namespace, the last numbered ``lastSequence``: what an
/// owner sends its relays right after the batch's commit.
struct ReplicatedBatch: Sendable {
    let lastSequence: Int64
    let writes: [ReplicatedWrite]
}

/// What a namespace's owner tells a relay, one message per line of the link (``RelayWire``).
enum ReplicationMessage: Sendable {
    /// The durable tree as of write `sequence`, and the rules the owner enforces. The first
    /// message of every link.
    case snapshot(sequence: Int64, tree: Node, rules: String)
    /// The next durable batch.
    case batch(ReplicatedBatch)
    /// The owner's stored rules were replaced.
    case rules(String)
    /// Nothing happened for a while; the owner is alive.
    case keepAlive
}
