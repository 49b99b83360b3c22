import HearthCore

/// Sorted indexes of the children of queried locations, kept current write by write.
///
/// An index is built the first time a location is queried by a value or child order, in
/// O(n log n) — only then, as building one reads every child, which may be pages on disk. Each later write below an indexed location updates its index in O(log n); a
/// write at or above the location drops it, to be rebuilt by the next query. Owned by
/// ``NamespaceEngine``.
struct IndexCache {
    private struct Location: Hashable {
        let path: DatabasePath
        let index: QueryIndex
    }

    /// More indexes than this and the least useful are dropped; each costs memory per child.
    static let capacity = 256

    private var indexes: [Location: SortedIndex] = [:]

    /// The index of `children` (the children at `path`) by `index`, building it if needed.
    mutating func index(at path: DatabasePath, by index: QueryIndex, children: ChildMap) -> SortedIndex {
        let location = Location(path: path, index: index)
        if let existing = indexes[location] { return existing }
        if indexes.count >= Self.capacity { indexes.removeAll() }
        let built = QueryWindow.build(index, children: children)
        indexes[location] = built
        return built
    }

    /// Brings every index up to date with `write`.
    mutating func apply(_ write: AppliedWrite) {
        guard !indexes.isEmpty else { return }
        for (location, sorted) in indexes {
            var updated = sorted
            var dropped = false
            for touched in write.touchedPaths {
                if touched.contains(location.path) {
                    dropped = true
                    break
                }
                guard let relative = location.path.relativePath(to: touched) else { continue }
                let key = relative.keys[0]
                let childPath = location.path.child(key)
                let old = write.before.child(at: childPath)
                let new = write.after.child(at: childPath)
                if !old.isNull {
                    updated = updated.removing(IndexEntry(value: location.index.indexValue(of: old, key: key), key: key))
                }
                if !new.isNull {
                    updated = updated.inserting(IndexEntry(value: location.index.indexValue(of: new, key: key), key: key), new)
                }
            }
            indexes[location] = dropped ? nil : updated
        }
    }
}
