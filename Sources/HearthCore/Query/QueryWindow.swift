/// One child as an index orders it: the index value, then the key.
public struct IndexEntry: Sendable, Hashable, Comparable {
    public var value: IndexValue
    public var key: ChildKey

    public init(value: IndexValue, key: ChildKey) {
        self.value = value
        self.key = key
    }

    public static func < (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        if lhs.value != rhs.value { return lhs.value < rhs.value }
        return lhs.key < rhs.key
    }
}

/// The children of one location sorted by one index, kept current as data changes.
public typealias SortedIndex = SortedTree<IndexEntry, Node>

/// Computes which children a query selects.
public enum QueryWindow {
    /// The children of `node` that `query` selects, in index order.
    ///
    /// `sortedIndex`, when given, must be `node`'s children sorted by `query.index`; without it the
    /// children are sorted here. The key index needs none. A leaf or null location selects nothing.
    public static func select(
        _ query: QueryParams, from node: Node, sortedIndex: SortedIndex? = nil
    ) -> [(key: ChildKey, value: Node)] {
        guard case .object(let children, _) = node else { return [] }
        if query.index == .key {
            let ranks = rankRange(
                query, count: children.count,
                rank: { bound, orEqual in
                    children.rank { key in isBefore(key: key, bound: bound, orEqual: orEqual) }
                })
            return Array(children.entries(inRanks: ranks))
        }
        let index = sortedIndex ?? build(query.index, children: children)
        let ranks = rankRange(
            query, count: index.count,
            rank: { bound, orEqual in
                index.rank { entry in isBefore(entry: entry, bound: bound, orEqual: orEqual) }
            })
        return index.entries(inRanks: ranks).map { ($0.key.key, $0.value) }
    }

    /// `children` sorted by `index`.
    public static func build(_ index: QueryIndex, children: ChildMap) -> SortedIndex {
        var entries = children.map { (key: IndexEntry(value: index.indexValue(of: $0.value, key: $0.key), key: $0.key), value: $0.value) }
        if index != .key { entries.sort { $0.key < $1.key } }
        return SortedIndex(sortedEntries: entries)
    }

    /// The ranks the range and limit keep, given a function that counts entries before a bound.
    private static func rankRange(
        _ query: QueryParams, count: Int, rank: (QueryParams.Bound, Bool) -> Int
    ) -> Range<Int> {
        var lower = 0
        var upper = count
        if let start = query.start {
            // Entries before an inclusive start are those strictly below it.
            lower = rank(start, !start.inclusive)
        }
        if let end = query.end {
            upper = rank(end, end.inclusive)
        }
        guard lower < upper else { return 0..<0 }
        if let limit = query.limit {
            switch query.anchor {
            case .first: upper = min(upper, lower + limit)
            case .last: lower = max(lower, upper - limit)
            }
        }
        return lower..<upper
    }

    /// Whether `entry` sorts before the bound's post (or at it, when `orEqual`).
    static func isBefore(entry: IndexEntry, bound: QueryParams.Bound, orEqual: Bool) -> Bool {
        if entry.value != bound.value { return entry.value < bound.value }
        return isBefore(key: entry.key, boundKey: bound.key ?? defaultKey(for: bound, orEqual: orEqual), orEqual: orEqual)
    }

    /// For the key index the bound's value is the key itself.
    static func isBefore(key: ChildKey, bound: QueryParams.Bound, orEqual: Bool) -> Bool {
        guard case .string(let string) = bound.value else {
            // Keys are strings; a non-string bound sorts before every key.
            return false
        }
        return isBefore(key: key, boundKey: .key(ChildKey(string)), orEqual: orEqual)
    }

    private static func isBefore(key: ChildKey, boundKey: BoundKey, orEqual: Bool) -> Bool {
        let entryKey = BoundKey.key(key)
        return orEqual ? entryKey <= boundKey : entryKey < boundKey
    }

    /// A bound without a key covers every key with its value when inclusive and none when
    /// exclusive, so `startAfter(v)` means "value above v" and `endBefore(v)` "value below v".
    private static func defaultKey(for bound: QueryParams.Bound, orEqual: Bool) -> BoundKey {
        orEqual ? .maximum : .minimum
    }
}
