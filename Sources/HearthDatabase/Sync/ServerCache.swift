import HearthCore

/// What the client knows of the server's data outside tagged query windows: one tree for the
/// whole database, and the locations whose whole value it holds.
///
/// A location is *complete* when its value arrived whole (a server overwrite there or above, or
/// a listen's `ok`). Below an incomplete location only complete children mean anything; the
/// rest of the tree there is partial and never shown as a value.
struct ServerCache {
    private(set) var root: Node = .null
    private var completeness = PathTree<Bool>()

    func node(at path: DatabasePath) -> Node { root.child(at: path) }

    /// Whether the whole value at `path` is known.
    func isComplete(_ path: DatabasePath) -> Bool {
        completeness.containsValueOnPath(to: path)
    }

    /// The children of an incomplete `path` whose whole values are known.
    func completeChildren(of path: DatabasePath) -> [ChildKey] {
        guard let subtree = completeness.subtree(at: path) else { return [] }
        return subtree.children.compactMap { $0.value.value == true ? $0.key : nil }
    }

    /// The server's value at `path` replaces what was known there; the location is complete.
    mutating func overwrite(_ node: Node, at path: DatabasePath) {
        root = root.writing(node, at: path)
        if path.priorityOwner == nil { markComplete(path) }
    }

    /// Marks `path` complete (a listen's `ok`): what is cached there is the whole value.
    mutating func markComplete(_ path: DatabasePath) {
        guard !isComplete(path) else { return }
        completeness.setSubtree(PathTree(value: true), at: path)
    }

    /// Forgets everything at and below `path` except the locations in `kept`, which are below
    /// `path` and still listened to: their data and completeness stay.
    mutating func forget(_ path: DatabasePath, keeping kept: [DatabasePath]) {
        let saved = kept.map {
            (path: $0, node: root.child(at: $0), wasComplete: isComplete($0), completeness: completeness.subtree(at: $0))
        }
        root = root.updatingChild(at: path, with: .null)
        completeness.setSubtree(nil, at: path)
        for entry in saved {
            root = root.updatingChild(at: entry.path, with: entry.node)
            completeness.setSubtree(entry.completeness, at: entry.path)
            if entry.wasComplete { markComplete(entry.path) }
        }
    }
}
