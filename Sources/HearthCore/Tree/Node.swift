/// The children of an object node, ordered by key.
public typealias ChildMap = SortedTree<ChildKey, Node>

/// A value in the database tree: nothing, a leaf, or an object with at least one child.
///
/// Nodes are immutable and share structure: ``updatingChild(at:with:)`` returns a new node that
/// reuses every untouched subtree. Objects never hold null children, and an object whose last
/// child is removed becomes ``null``, as Firebase defines it.
public enum Node: Sendable {
    case null
    case leaf(LeafValue, priority: Priority?)
    case object(ChildMap, priority: Priority?)

    /// A leaf without priority.
    public static func value(_ value: LeafValue) -> Node { .leaf(value, priority: nil) }

    /// An object built from children, dropping null ones; `null` when none remain.
    public static func build(children: [(ChildKey, Node)], priority: Priority? = nil) -> Node {
        let sorted = children.filter { !$0.1.isNull }.sorted { $0.0 < $1.0 }
        var entries: [(key: ChildKey, value: Node)] = []
        entries.reserveCapacity(sorted.count)
        for (key, node) in sorted {
            if let last = entries.last, last.key == key {
                entries[entries.count - 1].value = node
            } else {
                entries.append((key, node))
            }
        }
        return make(children: ChildMap(sortedEntries: entries), priority: priority)
    }

    /// An object with `children`, or `null` when there are none.
    public static func make(children: ChildMap, priority: Priority?) -> Node {
        children.isEmpty ? .null : .object(children, priority: priority)
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public var priority: Priority? {
        switch self {
        case .null: nil
        case .leaf(_, let priority), .object(_, let priority): priority
        }
    }

    /// The children of an object; empty for leaves and null.
    public var children: ChildMap {
        if case .object(let children, _) = self { return children }
        return ChildMap()
    }

    /// The same node with another priority; null stays null (a priority on nothing is ignored).
    public func withPriority(_ priority: Priority?) -> Node {
        switch self {
        case .null: .null
        case .leaf(let value, _): .leaf(value, priority: priority)
        case .object(let children, _): .object(children, priority: priority)
        }
    }

    /// Whether this subtree holds at least `count` nodes, counted no further than that: the
    /// answer costs at most `count` steps, however large the subtree.
    public func hasAtLeast(nodes count: Int) -> Bool {
        var remaining = count
        func visit(_ node: Node) -> Bool {
            remaining -= 1
            guard remaining > 0 else { return true }
            guard case .object(let children, _) = node else { return false }
            for (_, child) in children where visit(child) { return true }
            return false
        }
        return visit(self)
    }

    /// This node with every paged map in it replaced by its entries: a copy that never reads a
    /// page again, for a reader elsewhere than where pages may be read. Resident parts are
    /// shared, not copied.
    public func resident() -> Node {
        guard case .object(let children, let priority) = self else { return self }
        let resident = children.resident({ $0.resident() }, isUnchanged: Node.isSameNode)
        return resident.isIdentical(to: children) ? self : .object(resident, priority: priority)
    }

    /// Whether `second` is `first` itself: the same leaf, or an object with the same map (a
    /// test that reads no page).
    private static func isSameNode(_ first: Node, _ second: Node) -> Bool {
        switch (first, second) {
        case (.object(let left, _), .object(let right, _)): left.isIdentical(to: right)
        default: true
        }
    }

    /// The direct child named `key`, or null.
    public func child(_ key: ChildKey) -> Node {
        if case .object(let children, _) = self { return children[key] ?? .null }
        return .null
    }

    /// The node at `path` below this one, or null.
    public func child(at path: DatabasePath) -> Node {
        var node = self
        for key in path.keys {
            node = node.child(key)
            if node.isNull { break }
        }
        return node
    }

    /// This node with the direct child `key` replaced by `node` (removed when `node` is null).
    /// Writing a child of a leaf replaces the leaf with an object, dropping the leaf's priority.
    public func updatingChild(_ key: ChildKey, with node: Node) -> Node {
        switch self {
        case .object(let children, let priority):
            let updated = node.isNull ? children.removing(key) : children.inserting(key, node)
            return Node.make(children: updated, priority: priority)
        case .null, .leaf:
            return node.isNull ? self : .object(ChildMap().inserting(key, node), priority: nil)
        }
    }

    /// This node with the node at `path` replaced by `node`. Ancestors left without children
    /// become null.
    public func updatingChild(at path: DatabasePath, with node: Node) -> Node {
        updating(path.keys[...], with: node)
    }

    private func updating(_ keys: ArraySlice<ChildKey>, with node: Node) -> Node {
        guard let first = keys.first else { return node }
        let child = self.child(first)
        let updatedChild = child.updating(keys.dropFirst(), with: node)
        if updatedChild.isNull && child.isNull { return self }
        return updatingChild(first, with: updatedChild)
    }
}

extension Node: Equatable {
    /// Structural equality, priorities included; numbers compare mathematically.
    public static func == (lhs: Node, rhs: Node) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.leaf(let leftValue, let leftPriority), .leaf(let rightValue, let rightPriority)):
            return leftValue == rightValue && leftPriority == rightPriority
        case (.object(let leftChildren, let leftPriority), .object(let rightChildren, let rightPriority)):
            guard leftPriority == rightPriority, leftChildren.count == rightChildren.count else { return false }
            if leftChildren.isIdentical(to: rightChildren) { return true }
            return zip(leftChildren, rightChildren).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default:
            return false
        }
    }
}
