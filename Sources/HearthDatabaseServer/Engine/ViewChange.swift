import HearthCore

/// What one listener must be told about one write, relative to the location it listens to.
public enum ViewChange: Sendable, Equatable {
    /// Replace the data at `path` (relative to the listened location) with `node`.
    case put(path: DatabasePath, node: Node)
    /// Below `path`, replace each listed child path with its node.
    case patch(path: DatabasePath, children: [Patch])

    /// One entry of a patch: a path relative to the patch's path and its new node.
    public struct Patch: Sendable, Equatable {
        public var path: DatabasePath
        public var node: Node
    }

    /// The change a listener at `location` with no filter sees for `write`, or `nil` when its
    /// data did not change.
    static func forLocation(_ location: DatabasePath, write: AppliedWrite) -> ViewChange? {
        let before = write.before
        let after = write.after
        switch write.kind {
        case .set:
            if let relative = location.relativePath(to: write.path) {
                let node = after.child(at: write.path)
                return node == before.child(at: write.path) ? nil : .put(path: relative, node: node)
            }
            return wholeLocation(location, write: write)
        case .merge(let paths):
            if let relative = location.relativePath(to: write.path) {
                let patches = paths.compactMap { path -> Patch? in
                    let node = after.child(at: path)
                    guard node != before.child(at: path) else { return nil }
                    return Patch(path: write.path.relativePath(to: path)!, node: node)
                }
                return patches.isEmpty ? nil : .patch(path: relative, children: patches)
            }
            let touching = paths.filter { $0.contains(location) || location.contains($0) }
            if touching.isEmpty { return nil }
            if touching.contains(where: { $0.contains(location) }) {
                return wholeLocation(location, write: write)
            }
            let patches = touching.compactMap { path -> Patch? in
                let node = after.child(at: path)
                guard node != before.child(at: path) else { return nil }
                return Patch(path: location.relativePath(to: path)!, node: node)
            }
            return patches.isEmpty ? nil : .patch(path: .root, children: patches)
        }
    }

    static func wholeLocation(_ location: DatabasePath, write: AppliedWrite) -> ViewChange? {
        guard write.path.contains(location) || location.contains(write.path) else { return nil }
        let node = write.after.child(at: location)
        return node == write.before.child(at: location) ? nil : .put(path: .root, node: node)
    }
}
