import HearthCore

/// Listen groups indexed by location, so that a write visits only the groups whose location is
/// at, above or below a path it touched, not every group of the namespace.
///
/// A tree of path keys: each node holds the groups listening exactly there. Owned by
/// ``ListenerRegistry``; not thread-safe on its own.
final class LocationIndex {
    private final class TrieNode {
        var groups: Set<ListenKey> = []
        var children: [ChildKey: TrieNode] = [:]

        var isEmpty: Bool { groups.isEmpty && children.isEmpty }

        func collectAll(into result: inout Set<ListenKey>) {
            result.formUnion(groups)
            for child in children.values { child.collectAll(into: &result) }
        }
    }

    private let root = TrieNode()

    func insert(_ group: ListenKey) {
        var node = root
        for key in group.location.keys {
            if let child = node.children[key] {
                node = child
            } else {
                let child = TrieNode()
                node.children[key] = child
                node = child
            }
        }
        node.groups.insert(group)
    }

    func remove(_ group: ListenKey) {
        remove(group, keys: group.location.keys[...], from: root)
    }

    /// Removes `group` below `node`, pruning nodes left empty.
    private func remove(_ group: ListenKey, keys: ArraySlice<ChildKey>, from node: TrieNode) {
        guard let first = keys.first else {
            node.groups.remove(group)
            return
        }
        guard let child = node.children[first] else { return }
        remove(group, keys: keys.dropFirst(), from: child)
        if child.isEmpty { node.children[first] = nil }
    }

    /// The groups whose location is at, above or below one of `paths`.
    func groups(touching paths: [DatabasePath]) -> Set<ListenKey> {
        var result: Set<ListenKey> = []
        for path in paths {
            var node = root
            var reachedPath = true
            for key in path.keys {
                result.formUnion(node.groups)
                guard let child = node.children[key] else {
                    reachedPath = false
                    break
                }
                node = child
            }
            if reachedPath { node.collectAll(into: &result) }
        }
        return result
    }
}
