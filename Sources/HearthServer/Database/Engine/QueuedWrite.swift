import HearthCore

/// A write described before it is applied: what an onDisconnect operation holds until its
/// connection ends, and what ``NamespaceEngine/apply(_:)`` applies as one batch.
public struct QueuedWrite: Sendable {
    public enum Kind: Sendable {
        /// Replace the node at the path.
        case set(JSONValue)
        /// Replace each (relative path, value) below the path.
        case update([(DatabasePath, JSONValue)])
    }

    /// Where the write applies.
    public var path: DatabasePath
    public var kind: Kind
    /// Locations the write must leave as they are when it applies: below a queued write, a
    /// cancelled onDisconnect keeps the value current at that moment.
    public var preserving: [DatabasePath] = []

    public static func set(_ path: DatabasePath, _ json: JSONValue) -> QueuedWrite {
        QueuedWrite(path: path, kind: .set(json))
    }

    public static func update(_ path: DatabasePath, _ entries: [(DatabasePath, JSONValue)]) -> QueuedWrite {
        QueuedWrite(path: path, kind: .update(entries))
    }

    /// The locations the write replaces: its path for a set, one per entry for an update. A
    /// write to `x/.priority` replaces `x` (with its priority changed).
    var replacedLocations: [DatabasePath] {
        switch kind {
        case .set: return [path.priorityOwner ?? path]
        case .update(let entries):
            return entries.map { entry in
                let location = path.appending(entry.0)
                return location.priorityOwner ?? location
            }
        }
    }
}
