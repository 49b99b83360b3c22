import HearthCore

extension Node {
    /// This node with `node` written at `path` below it. A path ending in `.priority` sets the
    /// priority of the node before it (nothing when that node is null), as Firebase's writes do.
    func writing(_ node: Node, at path: DatabasePath) -> Node {
        guard let owner = path.priorityOwner else { return updatingChild(at: path, with: node) }
        let target = child(at: owner)
        return updatingChild(at: owner, with: target.withPriority(Priority(node)))
    }
}

extension Priority {
    /// The priority a node written at a `.priority` path sets: its number or string, else none.
    init?(_ node: Node) {
        switch node {
        case .leaf(.number(let number), _): self = .number(number)
        case .leaf(.string(let string), _): self = .string(string)
        default: return nil
        }
    }
}
