import HearthCore

extension ViewChange {
    /// The change a listener on an unindexed query (`no_index`, protocol §7.6) sees for `write`,
    /// or `nil` when nothing it may hold changed.
    ///
    /// Such a listener was sent the whole location, but a client keeps only the query's window
    /// and drops a deeper update for a child the window does not hold. So every change goes out
    /// at child granularity: a changed child of the location whole (or null), a write at or
    /// above the location as the whole location; and a child that enters the window without
    /// changing (it refills a limit another child left) whole as well. `previousWindow` and
    /// `window` are the query's window before and after the write.
    static func forUnindexedQuery(
        _ location: DatabasePath, write: AppliedWrite, previousWindow: Node, window: Node
    ) -> ViewChange? {
        if write.touchedPaths.contains(where: { $0.contains(location) }) {
            return wholeLocation(location, write: write)
        }
        var patches: [Patch] = []
        var visited = Set<ChildKey>()
        var pushed = Set<ChildKey>()
        for path in write.touchedPaths {
            guard let key = location.relativePath(to: path)?.keys.first, visited.insert(key).inserted else { continue }
            let childPath = location.child(key)
            let node = write.after.child(at: childPath)
            guard node != write.before.child(at: childPath) else { continue }
            patches.append(Patch(path: DatabasePath.root.child(key), node: node))
            pushed.insert(key)
        }
        if case .object(let children, _) = window {
            for (key, node) in children where !pushed.contains(key) && previousWindow.child(key).isNull {
                patches.append(Patch(path: DatabasePath.root.child(key), node: node))
            }
        }
        return patches.isEmpty ? nil : .patch(path: .root, children: patches)
    }
}
