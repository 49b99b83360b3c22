import Foundation
import HearthCore

/// An immutable copy of the data at a location, as an observer or a read received it.
///
/// `value` is a Foundation value (`[String: Any]`, `[Any]`, `NSNumber`, `String`) or `nil`
/// when the location holds nothing, so `snapshot.value as? [String: Any]` works as with Firebase.
public final class DataSnapshot: Sendable, CustomStringConvertible {
    /// The location this snapshot was taken from.
    public let ref: DatabaseReference
    let node: Node
    /// The order `children` follow: the query's.
    let index: QueryIndex

    init(ref: DatabaseReference, node: Node, index: QueryIndex = .priority) {
        self.ref = ref
        self.node = node
        self.index = index
    }

    /// The data without priorities; `NSNull` when there is none, as with Firebase.
    public var value: Any? {
        FoundationValue.plain(node)
    }

    /// The last part of the location's path; `nil` for the root.
    public var key: String { ref.key ?? "" }

    /// The data with priorities (`.priority`, `.value`), as `setValue` accepts it back.
    public func valueInExportFormat() -> Any? {
        FoundationValue.export(node)
    }

    /// The priority of the data: `NSNumber`, `String`, or `NSNull` when there is none.
    public var priority: Any? {
        FoundationValue.priority(node.priority)
    }

    public func exists() -> Bool { !node.isNull }

    /// The snapshot at `path` below this one (empty when nothing is there).
    public func childSnapshot(forPath path: String) -> DataSnapshot {
        let relative = DatabaseReference.parsePath(path)
        return DataSnapshot(ref: ref.child(at: relative), node: node.child(at: relative), index: .priority)
    }

    /// Whether data exists at `path` below this one.
    public func hasChild(_ path: String) -> Bool {
        !node.child(at: DatabaseReference.parsePath(path)).isNull
    }

    public func hasChildren() -> Bool { !node.children.isEmpty }

    public var childrenCount: UInt { UInt(node.children.count) }

    /// The direct children as `DataSnapshot`s, in the order of the query that produced this
    /// snapshot (priority order by default).
    public var children: NSEnumerator {
        ObjectEnumerator(orderedChildren.map { DataSnapshot(ref: ref.child(at: DatabasePath(validatedKeys: [$0.key])), node: $0.value) })
    }

    private var orderedChildren: [(key: ChildKey, value: Node)] {
        let children = node.children
        if index == .key { return children.map { ($0.key, $0.value) } }
        return QueryWindow.build(index, children: children).map { ($0.key.key, $0.value) }
    }

    public var description: String {
        "Snap (\(key)) \(JSONWriter.string(node))"
    }
}
