import HearthCore

/// A user write the server has not yet acknowledged: a set (or `removeValue`, `setPriority`,
/// a transaction's run) or a multi-path update, in the order the app made them.
struct UserWrite {
    enum Change {
        case overwrite(Node)
        /// Values for paths relative to the write's path, applied in order.
        case merge([(path: DatabasePath, node: Node)])
    }

    let id: Int
    let path: DatabasePath
    let change: Change
    /// Transactions run without local events write invisibly: they feed later transactions but
    /// raise no events.
    let isVisible: Bool

    /// Each location this write replaces, with the value it puts there.
    var overwrites: [(path: DatabasePath, node: Node)] {
        switch change {
        case .overwrite(let node): [(path, node)]
        case .merge(let entries): entries.map { (path.appending($0.path), $0.node) }
        }
    }

    /// Whether the write changes anything at, above or below `other`.
    func isRelated(to other: DatabasePath) -> Bool {
        overwrites.contains { $0.path.contains(other) || other.contains($0.path) }
    }
}

/// A value as far as it is known locally. When incomplete, `node` holds only the children whose
/// whole value is known, and `knownKeys` names them (a known child may be null).
struct LocalValue {
    var node: Node
    var isComplete: Bool
    var knownKeys: Set<ChildKey> = []

    static let unknown = LocalValue(node: .null, isComplete: false)
}

/// The pending user writes in write-id order, and the values they make visible (spec §17.2).
struct WriteTree {
    private(set) var writes: [UserWrite] = []

    mutating func add(_ write: UserWrite) {
        writes.append(write)
    }

    /// Removes the write with `id` and returns it.
    @discardableResult
    mutating func remove(id: Int) -> UserWrite? {
        guard let index = writes.firstIndex(where: { $0.id == id }) else { return nil }
        return writes.remove(at: index)
    }

    mutating func removeAll() -> [UserWrite] {
        defer { writes = [] }
        return writes
    }

    /// Whether any pending write touches `path`, its ancestors or descendants.
    func hasWrites(relatedTo path: DatabasePath) -> Bool {
        writes.contains { $0.isRelated(to: path) }
    }

    /// `base`, the server's value at `path`, with the pending writes laid over it in order.
    /// Invisible writes count only when `includingHidden`; writes in `excluded` never do.
    func overlay(
        _ base: LocalValue, at path: DatabasePath, includingHidden: Bool = false, excluding excluded: Set<Int> = []
    ) -> LocalValue {
        var value = base
        for write in writes where (write.isVisible || includingHidden) && !excluded.contains(write.id) {
            for (target, node) in write.overwrites { value.apply(node, writtenAt: target, viewedFrom: path) }
        }
        return value
    }
}

extension LocalValue {
    /// Lays a write of `node` at `target` over this value of the location `path`.
    mutating func apply(_ node: Node, writtenAt target: DatabasePath, viewedFrom path: DatabasePath) {
        if let owner = target.priorityOwner, owner.contains(path), owner != path {
            return  // the priority of an ancestor does not change this location
        }
        if target.contains(path), let relative = target.relativePath(to: path) {
            self = LocalValue(node: node.child(at: relative), isComplete: true)
            return
        }
        guard let relative = path.relativePath(to: target), let key = relative.keys.first else { return }
        if isComplete {
            self.node = self.node.writing(node, at: relative)
        } else if relative.count == 1, key != DatabasePath.priorityKey {
            self.node = self.node.updatingChild(key, with: node)
            knownKeys.insert(key)
        } else if knownKeys.contains(key) {
            self.node = self.node.writing(node, at: relative)
        }
    }
}
