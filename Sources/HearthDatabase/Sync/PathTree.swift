import HearthCore

/// A sparse tree keyed by database paths, holding an optional value at each location.
///
/// The sync engine keeps several maps of this shape: which locations the server cache knows
/// completely, which locations have views, where transactions wait, what onDisconnect writes
/// the server has accepted. Locations without a value and without descendants are pruned.
struct PathTree<Value> {
    var value: Value?
    var children: [ChildKey: PathTree<Value>] = [:]

    init(value: Value? = nil) {
        self.value = value
    }

    var isEmpty: Bool { value == nil && children.isEmpty }

    /// The value stored exactly at `path`.
    func value(at path: DatabasePath) -> Value? {
        subtree(at: path)?.value
    }

    /// The subtree rooted at `path`, if anything is stored there or below.
    func subtree(at path: DatabasePath) -> PathTree? {
        var tree = self
        for key in path.keys {
            guard let child = tree.children[key] else { return nil }
            tree = child
        }
        return tree
    }

    /// Stores `value` at `path` (removes it when `nil`), keeping descendants.
    mutating func set(_ value: Value?, at path: DatabasePath) {
        update(path.keys[...]) { $0.value = value }
    }

    /// Replaces the whole subtree at `path` (removes it when `nil` or empty).
    mutating func setSubtree(_ subtree: PathTree?, at path: DatabasePath) {
        update(path.keys[...]) { $0 = subtree ?? PathTree() }
    }

    /// Runs `change` on the tree at `keys`, creating it if needed, then prunes empty locations.
    private mutating func update(_ keys: ArraySlice<ChildKey>, _ change: (inout PathTree) -> Void) {
        guard let first = keys.first else {
            change(&self)
            return
        }
        var child = children.removeValue(forKey: first) ?? PathTree()
        child.update(keys.dropFirst(), change)
        if !child.isEmpty { children[first] = child }
    }

    /// Values stored at `path`'s ancestors and at `path` itself, from the root down.
    func valuesOnPath(to path: DatabasePath) -> [(path: DatabasePath, value: Value)] {
        var found: [(DatabasePath, Value)] = []
        var tree = self
        var keys: [ChildKey] = []
        if let value = tree.value { found.append((.root, value)) }
        for key in path.keys {
            guard let child = tree.children[key] else { break }
            keys.append(key)
            tree = child
            if let value = tree.value { found.append((DatabasePath(validatedKeys: keys), value)) }
        }
        return found
    }

    /// Whether a value lies at `path` or any of its ancestors.
    func containsValueOnPath(to path: DatabasePath) -> Bool {
        var tree = self
        if tree.value != nil { return true }
        for key in path.keys {
            guard let child = tree.children[key] else { return false }
            tree = child
            if tree.value != nil { return true }
        }
        return false
    }

    /// Every stored value at or below this tree's root, deepest first, with paths relative to
    /// `base`.
    func valuesDeepestFirst(under base: DatabasePath = .root) -> [(path: DatabasePath, value: Value)] {
        var found: [(DatabasePath, Value)] = []
        collectDeepestFirst(base, into: &found)
        return found
    }

    private func collectDeepestFirst(_ path: DatabasePath, into found: inout [(DatabasePath, Value)]) {
        for (key, child) in children.sorted(by: { $0.key < $1.key }) {
            child.collectDeepestFirst(path.child(key), into: &found)
        }
        if let value { found.append((path, value)) }
    }

    /// Every stored value, parents before children.
    func valuesTopDown(under base: DatabasePath = .root) -> [(path: DatabasePath, value: Value)] {
        var found: [(DatabasePath, Value)] = []
        collectTopDown(base, into: &found)
        return found
    }

    private func collectTopDown(_ path: DatabasePath, into found: inout [(DatabasePath, Value)]) {
        if let value { found.append((path, value)) }
        for (key, child) in children.sorted(by: { $0.key < $1.key }) {
            child.collectTopDown(path.child(key), into: &found)
        }
    }
}
