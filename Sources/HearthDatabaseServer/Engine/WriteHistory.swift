import HearthCore
import HearthEdge

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A namespace's history as its write log keeps it: the writes that changed a location, and
/// the location as it was at a time.
///
/// The log keeps the most recent writes (``NamespaceStoreOptions/keptWrites``); history
/// begins at the time of the newest write it no longer keeps (``Page/begins``). A location can
/// be taken back to any time since then, unless a write after that time replaced a node there
/// too large to keep (``LoggedWrite/Change/before``).
public enum WriteHistory {
    /// One write.
    public struct Entry: Sendable, Equatable {
        /// Its number in the namespace's log: later writes have larger numbers.
        public let sequence: Int64
        /// When it was applied, in ms since 1970.
        public let time: Int64
        /// `{"admin": true}`, `{"uid": …, "provider": …}`, or `{}` for a client not signed in.
        public let author: JSONValue
        /// `rest`, `realtime`, `on-disconnect`, `console` or `server` (``WriteTransport``).
        public let transport: String
        public let changes: [Change]
    }

    /// One location a write replaced.
    public struct Change: Sendable, Equatable {
        public let path: DatabasePath
        /// The node before, or `nil` when it was too large to keep.
        public let before: Node?
        /// The node after, or `nil` when the log does not hold it (a write too large for it).
        public let after: Node?
    }

    /// Writes of a location, newest first.
    public struct Page: Sendable {
        public let entries: [Entry]
        /// Where the next page starts (pass it as `before`), or `nil` when history ends here.
        public let next: Int64?
        /// The time before which history is not kept (0: since the namespace began).
        public let begins: Int64
    }

    /// `entry` as seen from `location`: its changes at or below it, and a change above it as
    /// the change it made at `location`. `nil` when it changed nothing there.
    static func entry(_ entry: Entry, seenFrom location: DatabasePath) -> Entry? {
        var changes: [Change] = []
        for change in entry.changes {
            if location.contains(change.path) {
                changes.append(change)
            } else if let relative = change.path.relativePath(to: location) {
                let before = change.before?.child(at: relative)
                let after = change.after?.child(at: relative)
                if let before, let after, before == after { continue }
                changes.append(Change(path: location, before: before, after: after))
            }
        }
        guard !changes.isEmpty else { return nil }
        return Entry(sequence: entry.sequence, time: entry.time, author: entry.author, transport: entry.transport, changes: changes)
    }

    /// Takes `node`, the node at `location`, back to before the write of `time` that made
    /// `changes`.
    static func undo(_ changes: [Change], of time: Int64, at location: DatabasePath, on node: inout Node) throws(DatabaseError) {
        for change in changes.reversed() {
            let relative = location.relativePath(to: change.path)
            guard relative != nil || change.path.contains(location) else { continue }
            guard let before = change.before else {
                throw .historyNotKept(
                    "History cannot go back past the write at \(change.path) of \(iso8601(time)): the value it replaced was too large to keep."
                )
            }
            if let relative {
                node = node.updatingChild(at: relative, with: before)
            } else if let fromChange = change.path.relativePath(to: location) {
                node = before.child(at: fromChange)
            }
        }
    }

    /// `time` (ms since 1970) as ISO 8601 text, for messages.
    static func iso8601(_ time: Int64) -> String {
        Date(timeIntervalSince1970: Double(time) / 1000).formatted(.iso8601)
    }
}
