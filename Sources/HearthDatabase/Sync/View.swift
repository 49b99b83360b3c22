import HearthCore

/// One query's view of one location (spec §17.1): its observers, the window of server data its
/// own tagged listen delivered, and the *event cache* its observers last saw.
///
/// Views are classes because the sync tree finds one through several maps (by path, by tag) and
/// updates it in place; all their state is confined to the repo's worker queue.
final class View {
    let query: QuerySpec
    /// The tag of a view that needs its own filtered listen; `nil` for load-all queries.
    let tag: Int?
    private(set) var registrations: [EventRegistration] = []

    /// Server data delivered for this view's tag: its window, kept filtered.
    var taggedCache: Node?
    var isTaggedCacheComplete = false

    /// What observers last saw: the window, and whether it is the whole value.
    private(set) var eventCache: Node = .null
    private(set) var isEventCacheComplete = false
    /// `eventCache`'s children in the query's order (unused for the key order).
    private var order = SortedIndex()
    /// Whether some child of the event cache has a priority (then the default order is not
    /// the key order).
    private var hasPriorities = false

    init(query: QuerySpec, tag: Int?) {
        self.query = query
        self.tag = tag
    }

    var path: DatabasePath { query.path }
    var isEmpty: Bool { registrations.isEmpty }
    var hasVisibleObservers: Bool { registrations.contains { $0.eventType != nil } }

    func add(_ registration: EventRegistration) {
        registrations.append(registration)
    }

    /// Removes the observer with `handle` (all of them when `nil`, hidden ones excepted).
    func remove(handle: DatabaseHandle?) -> [EventRegistration] {
        let removed = registrations.filter { handle == nil ? $0.eventType != nil : $0.handle == handle }
        registrations.removeAll { registration in removed.contains { $0 === registration } }
        return removed
    }

    /// Removes and returns every registration (the view was cancelled).
    func removeAll() -> [EventRegistration] {
        defer { registrations = [] }
        return registrations
    }

    /// Replaces the event cache with `value` filtered by the query, and returns the changes.
    /// `changedKeys` limits the comparison when the caller knows only those children changed.
    func update(to value: LocalValue, changedKeys: Set<ChildKey>?) -> ViewChange {
        let node = query.window(of: value.node)
        let wasComplete = isEventCacheComplete
        let old = eventCache
        let children: [ChildChange]
        if let changedKeys, query.params.loadsAllData {
            children = ChildChange.compare(old, node, keys: changedKeys)
            updateOrder(for: children)
        } else {
            children = ChildChange.compare(old, node)
            hasPriorities = node.children.contains { $0.value.priority != nil }
            if query.params.index != .key { order = Self.order(of: node.children, by: query.params.index, hasPriorities) }
        }
        eventCache = node
        isEventCacheComplete = value.isComplete
        let leafChanged = (!node.isObject || !old.isObject) && old != node
        let valueChanged =
            value.isComplete && (!children.isEmpty || !wasComplete || leafChanged || old.priority != node.priority)
        return ViewChange(children: children, valueChanged: valueChanged)
    }

    /// `children` sorted by `index`. Children without priorities keep their key order under
    /// the default priority order, which costs no sorting.
    private static func order(of children: ChildMap, by index: QueryIndex, _ hasPriorities: Bool) -> SortedIndex {
        if index == .priority, !hasPriorities {
            return SortedIndex(sortedEntries: children.map { (IndexEntry(value: .null, key: $0.key), $0.value) })
        }
        return QueryWindow.build(index, children: children)
    }

    private func updateOrder(for changes: [ChildChange]) {
        guard query.params.index != .key else { return }
        for change in changes {
            if change.new?.priority != nil { hasPriorities = true }
            if let old = change.old { order = order.removing(entry(change.key, old)) }
            if let new = change.new { order = order.inserting(entry(change.key, new), new) }
        }
    }

    /// Whether the query's order is the key order: `queryOrderedByKey`, or the default order
    /// while no child has a priority. Changes, found in key order, then need no sorting.
    var isKeyOrdered: Bool {
        query.params.index == .key || (query.params.index == .priority && !hasPriorities)
    }

    func entry(_ key: ChildKey, _ node: Node) -> IndexEntry {
        IndexEntry(value: query.params.index.indexValue(of: node, key: key), key: key)
    }

    /// Whether what the query orders a child by changed (`child_moved`, spec §17.4.2): the
    /// priority, the whole value, or the value at the child path; never for the key order.
    func indexedValueChanged(from old: Node, to new: Node, key: ChildKey) -> Bool {
        switch query.params.index {
        case .key: false
        case .priority: old.priority != new.priority
        case .value: old != new
        case .child(let path): old.child(at: path) != new.child(at: path)
        }
    }

    /// The child just before `key` in the event cache, in the query's order.
    func previousKey(before key: ChildKey) -> ChildKey? {
        let children = eventCache.children
        if query.params.index == .key {
            let rank = children.rank { $0 < key }
            return rank > 0 ? children.entry(atRank: rank - 1).key : nil
        }
        let target = entry(key, children[key] ?? .null)
        let rank = order.rank { $0 < target }
        return rank > 0 ? order.entry(atRank: rank - 1).key.key : nil
    }

    /// The event cache's children in the query's order, with their predecessors.
    var orderedChildren: [(key: ChildKey, node: Node)] {
        if query.params.index == .key { return eventCache.children.map { ($0.key, $0.value) } }
        return order.map { ($0.key.key, $0.value) }
    }
}

/// What one operation changed in a view.
struct ViewChange {
    var children: [ChildChange]
    var valueChanged: Bool

    var isEmpty: Bool { children.isEmpty && !valueChanged }
}

/// One child that differs between two event caches: added (`old` nil), removed (`new` nil) or
/// changed in value or priority.
struct ChildChange {
    let key: ChildKey
    let old: Node?
    let new: Node?

    /// The children that differ between `old` and `new`, compared in key order.
    static func compare(_ old: Node, _ new: Node) -> [ChildChange] {
        let oldChildren = old.children
        let newChildren = new.children
        if oldChildren.isIdentical(to: newChildren) { return [] }
        var changes: [ChildChange] = []
        var oldIterator = oldChildren.makeIterator()
        var newIterator = newChildren.makeIterator()
        var oldEntry = oldIterator.next()
        var newEntry = newIterator.next()
        while oldEntry != nil || newEntry != nil {
            if let left = oldEntry, let right = newEntry, left.key == right.key {
                if left.value != right.value { changes.append(ChildChange(key: left.key, old: left.value, new: right.value)) }
                oldEntry = oldIterator.next()
                newEntry = newIterator.next()
            } else if let left = oldEntry, newEntry == nil || left.key < newEntry!.key {
                changes.append(ChildChange(key: left.key, old: left.value, new: nil))
                oldEntry = oldIterator.next()
            } else if let right = newEntry {
                changes.append(ChildChange(key: right.key, old: nil, new: right.value))
                newEntry = newIterator.next()
            }
        }
        return changes
    }

    /// The changes among `keys` only.
    static func compare(_ old: Node, _ new: Node, keys: Set<ChildKey>) -> [ChildChange] {
        keys.sorted().compactMap { key in
            let before = old.children[key]
            let after = new.children[key]
            guard before != after else { return nil }
            return ChildChange(key: key, old: before, new: after)
        }
    }
}

extension Node {
    var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
