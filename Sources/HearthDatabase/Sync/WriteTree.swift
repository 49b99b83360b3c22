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

}

/// A value as far as it is known locally. When incomplete, `node` holds only the children whose
/// whole value is known, and `knownKeys` names them (a known child may be null).
struct LocalValue {
    var node: Node
    var isComplete: Bool
    var knownKeys: Set<ChildKey> = []

}

/// The pending user writes, and the values they make visible (spec §17.2).
///
/// Writes are indexed by the locations they replace, so that laying them over one location
/// costs the writes related to it, not every pending write; and a location overwritten again
/// and again (a counter set in a loop) costs only the writes since the last overwrite of it.
struct WriteTree {
    private var writes: [Int: UserWrite] = [:]
    /// The ids of the writes that replace each location, in write order.
    private var index = PathTree<[Int]>()

    mutating func add(_ write: UserWrite) {
        writes[write.id] = write
        for (target, _) in write.overwrites { index.set((index.value(at: target) ?? []) + [write.id], at: target) }
    }

    /// Removes the write with `id` and returns it.
    @discardableResult
    mutating func remove(id: Int) -> UserWrite? {
        guard let write = writes.removeValue(forKey: id) else { return nil }
        for (target, _) in write.overwrites {
            var remaining = index.value(at: target) ?? []
            remaining.removeAll { $0 == id }
            index.set(remaining.isEmpty ? nil : remaining, at: target)
        }
        return write
    }

    /// Removes every write and returns them in the order they were made.
    mutating func removeAll() -> [UserWrite] {
        defer {
            writes = [:]
            index = PathTree()
        }
        return writes.values.sorted { $0.id < $1.id }
    }

    /// `base`, the server's value at `path`, with the pending writes laid over it in order.
    /// Invisible writes count only when `includingHidden`; writes in `excluded` never do.
    func overlay(
        _ base: LocalValue, at path: DatabasePath, includingHidden: Bool = false, excluding excluded: Set<Int> = []
    ) -> LocalValue {
        func counts(_ id: Int) -> Bool {
            guard let write = writes[id] else { return false }
            return (write.isVisible || includingHidden) && !excluded.contains(id)
        }
        // The last write that replaces `path` or a location above it hides every earlier one.
        var start = Int.min
        let above = index.valuesOnPath(to: path)
        for (_, ids) in above {
            if let last = ids.last(where: counts) { start = max(start, last) }
        }
        var ids: [Int] = []
        for (_, found) in above { ids += found.filter { $0 >= start } }
        if let below = index.subtree(at: path) {
            for (location, found) in below.valuesTopDown(under: path) where location != path {
                ids += found.filter { $0 > start }
            }
        }
        var value = base
        for id in Set(ids).sorted() where counts(id) {
            for (target, node) in writes[id]!.overwrites { value.apply(node, writtenAt: target, viewedFrom: path) }
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
