import HearthCore

/// A `RuleDataSnapshot`: one location of a tree (the tree before the operation, or after it).
struct RuleSnapshot: Sendable {
    /// The whole tree the snapshot belongs to, for `parent()`.
    let tree: Node
    let path: DatabasePath
    let node: Node

    init(tree: Node, path: DatabasePath, node: Node) {
        self.tree = tree
        self.path = path
        self.node = node
    }

    /// The snapshot of `tree`'s root.
    init(root tree: Node) {
        self.init(tree: tree, path: .root, node: tree)
    }

    /// `child(path)`: `path` may hold several `/`-separated keys; keys that cannot exist simply
    /// lead to nothing.
    func child(_ relativePath: String) -> RuleSnapshot {
        var node = node
        var keys = path.keys
        for key in relativePath.split(separator: "/", omittingEmptySubsequences: true) {
            let childKey = ChildKey(String(key))
            node = node.child(childKey)
            keys.append(childKey)
        }
        return RuleSnapshot(tree: tree, path: DatabasePath(validatedKeys: keys), node: node)
    }

    func child(_ key: ChildKey) -> RuleSnapshot {
        RuleSnapshot(tree: tree, path: path.child(key), node: node.child(key))
    }

    func parent() throws(RuleFailure) -> RuleSnapshot {
        guard !path.isRoot else { throw RuleFailure("parent() called on the root") }
        let parentPath = path.parent
        return RuleSnapshot(tree: tree, path: parentPath, node: tree.child(at: parentPath))
    }

    /// `val()`: the leaf's value, an object for a node with children, null for nothing.
    var value: RuleValue {
        switch node {
        case .null: .null
        case .leaf(let leaf, _): RuleValue(leaf)
        case .object: .object(Self.json(of: node))
        }
    }

    var priority: RuleValue {
        switch node.priority {
        case nil: .null
        case .number(let number)?: .number(number.doubleValue)
        case .string(let string)?: .string(string)
        }
    }

    private static func json(of node: Node) -> JSONValue {
        switch node {
        case .null: .null
        case .leaf(.bool(let value), _): .bool(value)
        case .leaf(.number(let number), _): .number(number)
        case .leaf(.string(let string), _): .string(string)
        case .object(let children, _): .object(children.map { JSONMember(key: $0.key.string, value: json(of: $0.value)) })
        }
    }
}
