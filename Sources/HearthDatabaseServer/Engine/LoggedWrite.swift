import HearthCore
import HearthEdge

/// One applied write as the namespace's write log keeps it: when, for whom and through which
/// transport it was made, and for each location it replaced the node there before and after.
struct LoggedWrite: Sendable {
    /// One replaced location.
    struct Change: Sendable {
        let path: DatabasePath
        /// The node replaced, or `nil` when it was too large to keep (at least
        /// ``NamespaceEngine/largeSubtree`` nodes): history cannot go back past this write there.
        let before: Node?
        let after: Node
    }

    /// When the write was applied, in ms since 1970.
    let time: Int64
    let caller: Caller
    let transport: WriteTransport
    let changes: [Change]

    /// The changes of a write from `before` to `after` that replaced the subtrees at `paths`.
    ///
    /// A location is widened to the outermost ancestor (the root included) whose node changed
    /// kind or priority: a leaf the write wrote below (the leaf gave way to an object), an
    /// object it emptied (gone, with its priority, even when the same write filled it again),
    /// a location it created. Setting each node before back then restores `before` exactly.
    /// Such an ancestor holds nothing but what the write replaced, so widening adds little. The
    /// node before is kept unless it has at least `largeNodes` nodes. The nodes kept are
    /// resident (``Node/resident()``), and so is the node after unless it is that large.
    static func changes(from before: Node, to after: Node, at paths: [DatabasePath], largeNodes: Int) -> [Change] {
        var locations = paths.map { replacedLocation(of: $0, before: before, after: after) }
        if locations != paths { locations = Journal.outermost(locations).sorted { $0.keys.lexicographicallyPrecedes($1.keys) } }
        return locations.map { path in
            let replaced = before.child(at: path)
            // Resident copies: the change is rendered and read back away from the namespace's
            // executor. A large node after (a priority set on a large object) stays as it is:
            // rendering it stops at the log's budget, and copying it would read all of it.
            let written = after.child(at: path)
            return Change(
                path: path, before: replaced.hasAtLeast(nodes: largeNodes) ? nil : replaced.resident(),
                after: written.hasAtLeast(nodes: largeNodes) ? written : written.resident())
        }
    }

    /// The outermost ancestor of `path` whose node changed kind or priority from `before` to
    /// `after`, or `path`.
    private static func replacedLocation(of path: DatabasePath, before: Node, after: Node) -> DatabasePath {
        var nodeBefore = before
        var nodeAfter = after
        for (depth, key) in path.keys.enumerated() {
            if kind(of: nodeBefore) != kind(of: nodeAfter) || nodeBefore.priority != nodeAfter.priority {
                return DatabasePath(validatedKeys: Array(path.keys.prefix(depth)))
            }
            nodeBefore = nodeBefore.child(key)
            nodeAfter = nodeAfter.child(key)
        }
        return path
    }

    /// 0 for null, 1 for a leaf, 2 for an object.
    private static func kind(of node: Node) -> Int {
        switch node {
        case .null: 0
        case .leaf: 1
        case .object: 2
        }
    }

    /// The author as the log records it: `{"admin": true}`, `{"uid": …, "provider": …}`, or
    /// `{}` for a client not signed in.
    var author: JSONValue {
        switch caller {
        case .admin:
            return .object([JSONMember(key: "admin", value: .bool(true))])
        case .client(let auth):
            var members: [JSONMember] = []
            if case .string(let uid)? = auth["uid"] { members.append(JSONMember(key: "uid", value: .string(uid))) }
            if case .string(let provider)? = auth["provider"] {
                members.append(JSONMember(key: "provider", value: .string(provider)))
            }
            return .object(members)
        }
    }
}
