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
    /// A location is widened to the ancestor whose node the write replaced too: a leaf it
    /// wrote below (the leaf gave way to an object), or the highest one it emptied (gone, with
    /// its priority). Setting each node before back then restores `before` exactly. The node
    /// before is kept unless it has at least `largeNodes` nodes.
    static func changes(from before: Node, to after: Node, at paths: [DatabasePath], largeNodes: Int) -> [Change] {
        var locations = paths.map { replacedLocation(of: $0, before: before, after: after) }
        if locations != paths { locations = Journal.outermost(locations).sorted { $0.keys.lexicographicallyPrecedes($1.keys) } }
        return locations.map { path in
            let replaced = before.child(at: path)
            return Change(path: path, before: replaced.hasAtLeast(nodes: largeNodes) ? nil : replaced, after: after.child(at: path))
        }
    }

    /// `path`, or the outermost ancestor (below the root) that was a leaf before, or that
    /// existed before and not after.
    private static func replacedLocation(of path: DatabasePath, before: Node, after: Node) -> DatabasePath {
        var nodeBefore = before
        var nodeAfter = after
        for (depth, key) in path.keys.dropLast().enumerated() {
            nodeBefore = nodeBefore.child(key)
            nodeAfter = nodeAfter.child(key)
            let isLeaf = if case .leaf = nodeBefore { true } else { false }
            if isLeaf || (nodeAfter.isNull && !nodeBefore.isNull) {
                return DatabasePath(validatedKeys: Array(path.keys.prefix(depth + 1)))
            }
        }
        return path
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
