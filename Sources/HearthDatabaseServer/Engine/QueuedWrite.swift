import HearthCore

/// A write described before it is applied: what an onDisconnect operation holds until its
/// connection ends, and what ``NamespaceEngine/apply(_:)`` applies as one batch.
public struct QueuedWrite: Sendable {
    public enum Kind: Sendable {
        /// Replace the node at the path.
        case set(WriteValue)
        /// Replace each (relative path, value) below the path.
        case update([(DatabasePath, WriteValue)])
    }

    /// Where the write applies.
    public var path: DatabasePath
    public var kind: Kind
    /// Locations the write must leave as they are when it applies: below a queued write, a
    /// cancelled onDisconnect keeps the value current at that moment.
    public var preserving: [DatabasePath] = []

    public static func set(_ path: DatabasePath, _ value: WriteValue) -> QueuedWrite {
        QueuedWrite(path: path, kind: .set(value))
    }

    public static func update(_ path: DatabasePath, _ entries: [(DatabasePath, WriteValue)]) -> QueuedWrite {
        QueuedWrite(path: path, kind: .update(entries))
    }

    /// The locations the write replaces: its path for a set, one per entry for an update. A
    /// write to `x/.priority` replaces `x` (with its priority changed).
    public var replacedLocations: [DatabasePath] {
        switch kind {
        case .set: return [path.priorityOwner ?? path]
        case .update(let entries):
            return entries.map { entry in
                let location = path.appending(entry.0)
                return location.priorityOwner ?? location
            }
        }
    }

    /// The tree `before` becomes with this write, server values resolved at `timestamp`; `nil`
    /// when the write changes nothing (an empty update).
    public func applied(to before: Node, timestamp: Int64) throws(DatabaseError) -> Node? {
        var after = before
        switch kind {
        case .set(let value):
            if let owner = path.priorityOwner {
                after = before.updatingChild(
                    at: owner, with: try Self.withPriority(value, of: before.child(at: owner), timestamp: timestamp))
            } else {
                let node = try Self.build(value, at: path, existing: before.child(at: path), timestamp: timestamp)
                after = before.updatingChild(at: path, with: node)
            }
        case .update(let entries):
            guard path.priorityOwner == nil else { throw .invalidPath }
            guard !entries.isEmpty else { return nil }
            let absolute = entries.map { (path.appending($0.0), $0.1) }
            if DatabasePath.firstOverlap(in: absolute.map(\.0)) != nil { throw .overlappingUpdatePaths }
            // Values first, then priorities, so that a priority lands on the node's new value.
            for (childPath, value) in absolute where childPath.priorityOwner == nil {
                let node = try Self.build(value, at: childPath, existing: before.child(at: childPath), timestamp: timestamp)
                after = after.updatingChild(at: childPath, with: node)
            }
            for (childPath, value) in absolute {
                guard let owner = childPath.priorityOwner else { continue }
                after = after.updatingChild(
                    at: owner, with: try Self.withPriority(value, of: after.child(at: owner), timestamp: timestamp))
            }
        }
        for kept in preserving {
            after = after.updatingChild(at: kept, with: before.child(at: kept))
        }
        return after
    }

    private static func build(_ value: WriteValue, at path: DatabasePath, existing: Node, timestamp: Int64) throws(DatabaseError) -> Node {
        switch value {
        case .node(let node):
            return node
        case .json(let json):
            do {
                return try NodeBuilder(timestamp: timestamp).build(json, at: path, existing: existing)
            } catch {
                throw .invalidData(error)
            }
        }
    }

    /// `node` with the priority `value` describes. A missing node cannot hold a priority.
    private static func withPriority(_ value: WriteValue, of node: Node, timestamp: Int64) throws(DatabaseError) -> Node {
        switch value {
        case .json(let json):
            do {
                return node.withPriority(try NodeBuilder(timestamp: timestamp).buildPriority(json))
            } catch {
                throw .invalidData(error)
            }
        case .node(.null):
            return node.withPriority(nil)
        case .node(.leaf(.number(let number), _)):
            return node.withPriority(.number(number))
        case .node(.leaf(.string(let string), _)):
            return node.withPriority(.string(string))
        case .node:
            throw .invalidData(.invalidPriority)
        }
    }
}
