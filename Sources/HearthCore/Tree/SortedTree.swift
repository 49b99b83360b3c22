/// An immutable ordered map with structural sharing: a weight-balanced binary search tree.
///
/// Every update returns a new tree that shares all untouched subtrees with the old one, so a
/// reader holding the old tree never sees it change, and inserting into or removing from a map
/// of `n` entries costs O(log n) time and memory. Nodes carry subtree sizes, so entries can also
/// be reached by rank in O(log n).
///
/// A map may also be *paged*: its entries are then kept by a ``SortedTreePage``, which loads
/// them when first needed and may drop them again (a store too large for memory). Every
/// operation reads a paged map's entries through its page; a paged map is never empty.
///
/// Safe to use from any isolation domain: nothing in it is ever mutated after construction.
public struct SortedTree<Key: Comparable & Sendable, Value: Sendable>: Sendable {
    final class Branch: Sendable {
        let key: Key
        let value: Value
        let left: Branch?
        let right: Branch?
        let size: Int

        init(_ key: Key, _ value: Value, _ left: Branch?, _ right: Branch?) {
            self.key = key
            self.value = value
            self.left = left
            self.right = right
            self.size = (left?.size ?? 0) + (right?.size ?? 0) + 1
        }
    }

    private enum Storage {
        case resident(Branch?)
        case paged(SortedTreePage<Key, Value>)
    }

    private let storage: Storage

    /// The entries' tree, loaded through the page of a paged map.
    var root: Branch? {
        switch storage {
        case .resident(let root): root
        case .paged(let page): page.entries().root
        }
    }

    /// An empty map.
    public init() { storage = .resident(nil) }

    private init(root: Branch?) { storage = .resident(root) }

    /// A map whose entries `page` keeps. The page must hold at least one entry.
    public init(paged page: SortedTreePage<Key, Value>) { storage = .paged(page) }

    /// The page that keeps this map's entries, if it is paged.
    public var page: SortedTreePage<Key, Value>? {
        if case .paged(let page) = storage { return page }
        return nil
    }

    /// Builds a map from entries already sorted by key with no duplicates, in O(n).
    public init(sortedEntries entries: [(key: Key, value: Value)]) {
        func build(_ range: Range<Int>) -> Branch? {
            guard !range.isEmpty else { return nil }
            let middle = range.lowerBound + range.count / 2
            return Branch(
                entries[middle].key, entries[middle].value,
                build(range.lowerBound..<middle), build((middle + 1)..<range.upperBound))
        }
        storage = .resident(build(0..<entries.count))
    }

    public var count: Int { root?.size ?? 0 }

    /// Whether the map has no entries; answered without loading a paged map.
    public var isEmpty: Bool {
        switch storage {
        case .resident(let root): root == nil
        case .paged: false
        }
    }

    /// Whether both trees are the same object, a cheap test for "unchanged" that loads no page.
    public func isIdentical(to other: SortedTree) -> Bool {
        switch (storage, other.storage) {
        case (.resident(let root), .resident(let otherRoot)): root === otherRoot
        case (.paged(let page), .paged(let otherPage)): page === otherPage
        default: false
        }
    }

    /// The value of `key`; a paged map's page may answer without loading every entry.
    public subscript(key: Key) -> Value? {
        switch storage {
        case .resident(let root): Self.value(of: key, in: root)
        case .paged(let page): page.value(of: key)
        }
    }

    /// The value of `key` in the tree at `root`.
    static func value(of key: Key, in root: Branch?) -> Value? {
        var branch = root
        while let current = branch {
            if key < current.key {
                branch = current.left
            } else if current.key < key {
                branch = current.right
            } else {
                return current.value
            }
        }
        return nil
    }

    /// The map with `key` set to `value`.
    public func inserting(_ key: Key, _ value: Value) -> SortedTree {
        SortedTree(root: Self.insert(key, value, into: root))
    }

    /// The map without `key`.
    public func removing(_ key: Key) -> SortedTree {
        SortedTree(root: Self.remove(key, from: root))
    }

    /// The entry of the given rank, 0 being the smallest key.
    public func entry(atRank rank: Int) -> (key: Key, value: Value) {
        precondition(rank >= 0 && rank < count, "rank out of range")
        var branch = root!
        var rank = rank
        while true {
            let leftSize = branch.left?.size ?? 0
            if rank < leftSize {
                branch = branch.left!
            } else if rank == leftSize {
                return (branch.key, branch.value)
            } else {
                rank -= leftSize + 1
                branch = branch.right!
            }
        }
    }

    /// How many keys satisfy `isBefore`, which must hold for a prefix of the keys in order
    /// (for example "is less than some bound").
    public func rank(where isBefore: (Key) -> Bool) -> Int {
        var branch = root
        var rank = 0
        while let current = branch {
            if isBefore(current.key) {
                rank += (current.left?.size ?? 0) + 1
                branch = current.right
            } else {
                branch = current.left
            }
        }
        return rank
    }

    public var last: (key: Key, value: Value)? { isEmpty ? nil : entry(atRank: count - 1) }

    // MARK: Balancing (Adams' weight-balanced trees, delta 3, ratio 2)

    private static var delta: Int { 3 }
    private static var ratio: Int { 2 }

    private static func size(_ branch: Branch?) -> Int { branch?.size ?? 0 }

    private static func insert(_ key: Key, _ value: Value, into branch: Branch?) -> Branch {
        guard let branch else { return Branch(key, value, nil, nil) }
        if key < branch.key {
            return balance(branch.key, branch.value, insert(key, value, into: branch.left), branch.right)
        } else if branch.key < key {
            return balance(branch.key, branch.value, branch.left, insert(key, value, into: branch.right))
        } else {
            return Branch(key, value, branch.left, branch.right)
        }
    }

    private static func remove(_ key: Key, from branch: Branch?) -> Branch? {
        guard let branch else { return nil }
        if key < branch.key {
            let left = remove(key, from: branch.left)
            return left === branch.left ? branch : balance(branch.key, branch.value, left, branch.right)
        } else if branch.key < key {
            let right = remove(key, from: branch.right)
            return right === branch.right ? branch : balance(branch.key, branch.value, branch.left, right)
        } else {
            return glue(branch.left, branch.right)
        }
    }

    /// Joins two balanced trees whose keys are all ordered left before right and whose sizes are
    /// within the balance bound of each other.
    private static func glue(_ left: Branch?, _ right: Branch?) -> Branch? {
        guard let left else { return right }
        guard let right else { return left }
        if left.size > right.size {
            let (key, value, rest) = removeMax(left)
            return balance(key, value, rest, right)
        } else {
            let (key, value, rest) = removeMin(right)
            return balance(key, value, left, rest)
        }
    }

    private static func removeMin(_ branch: Branch) -> (Key, Value, Branch?) {
        guard let left = branch.left else { return (branch.key, branch.value, branch.right) }
        let (key, value, rest) = removeMin(left)
        return (key, value, balance(branch.key, branch.value, rest, branch.right))
    }

    private static func removeMax(_ branch: Branch) -> (Key, Value, Branch?) {
        guard let right = branch.right else { return (branch.key, branch.value, branch.left) }
        let (key, value, rest) = removeMax(right)
        return (key, value, balance(branch.key, branch.value, branch.left, rest))
    }

    private static func balance(_ key: Key, _ value: Value, _ left: Branch?, _ right: Branch?) -> Branch {
        let leftSize = size(left)
        let rightSize = size(right)
        if leftSize + rightSize <= 1 {
            return Branch(key, value, left, right)
        }
        if rightSize > delta * leftSize, let right {
            if size(right.left) < ratio * size(right.right) {
                return rotateLeft(key, value, left, right)
            }
            return rotateLeft(key, value, left, rotateRight(right))
        }
        if leftSize > delta * rightSize, let left {
            if size(left.right) < ratio * size(left.left) {
                return rotateRight(key, value, left, right)
            }
            return rotateRight(key, value, rotateLeft(left), right)
        }
        return Branch(key, value, left, right)
    }

    private static func rotateLeft(_ key: Key, _ value: Value, _ left: Branch?, _ right: Branch) -> Branch {
        Branch(right.key, right.value, Branch(key, value, left, right.left), right.right)
    }

    private static func rotateRight(_ key: Key, _ value: Value, _ left: Branch, _ right: Branch?) -> Branch {
        Branch(left.key, left.value, left.left, Branch(key, value, left.right, right))
    }

    private static func rotateLeft(_ branch: Branch) -> Branch {
        rotateLeft(branch.key, branch.value, branch.left, branch.right!)
    }

    private static func rotateRight(_ branch: Branch) -> Branch {
        rotateRight(branch.key, branch.value, branch.left!, branch.right)
    }
}

extension SortedTree: Sequence {
    /// Walks the entries in key order, optionally starting at a rank.
    public struct Iterator: IteratorProtocol {
        private var stack: [Branch] = []

        init(root: Branch?, startRank: Int) {
            var branch = root
            var rank = startRank
            while let current = branch {
                let leftSize = current.left?.size ?? 0
                if rank < leftSize {
                    stack.append(current)
                    branch = current.left
                } else if rank == leftSize {
                    stack.append(current)
                    return
                } else {
                    rank -= leftSize + 1
                    branch = current.right
                }
            }
        }

        public mutating func next() -> (key: Key, value: Value)? {
            guard let current = stack.popLast() else { return nil }
            var branch = current.right
            while let next = branch {
                stack.append(next)
                branch = next.left
            }
            return (current.key, current.value)
        }
    }

    public func makeIterator() -> Iterator { Iterator(root: root, startRank: 0) }

    /// This map resident, each value passed through `transform`: the same map when it is
    /// resident already and `isUnchanged` holds for every value and its transform.
    public func resident(_ transform: (Value) -> Value, isUnchanged: (Value, Value) -> Bool) -> SortedTree {
        var entries: [(key: Key, value: Value)]? = page == nil ? nil : []
        for (rank, (key, value)) in enumerated() {
            let transformed = transform(value)
            if entries == nil, !isUnchanged(value, transformed) {
                entries = Array(self.entries(inRanks: 0..<rank))
            }
            entries?.append((key, transformed))
        }
        return entries.map { SortedTree(sortedEntries: $0) } ?? self
    }

    /// The entries with ranks in `ranks`, in key order.
    public func entries(inRanks ranks: Range<Int>) -> some Sequence<(key: Key, value: Value)> {
        IteratorSequence(Iterator(root: root, startRank: ranks.lowerBound)).prefix(ranks.count)
    }

    public var underestimatedCount: Int { count }
}

/// Keeps the entries of a paged ``SortedTree``: loads them when first asked, and may drop them
/// again while no one changes them. Subclasses provide the storage; this class only names the
/// two operations a map needs.
open class SortedTreePage<Key: Comparable & Sendable, Value: Sendable>: @unchecked Sendable {
    public init() {}

    /// The entries, loaded if they are not in memory.
    open func entries() -> SortedTree<Key, Value> {
        preconditionFailure("a page must provide its entries")
    }

    /// The value of `key`; by default looked up in the entries. A page of many entries may read
    /// only the one asked for.
    open func value(of key: Key) -> Value? {
        SortedTree.value(of: key, in: entries().root)
    }
}
