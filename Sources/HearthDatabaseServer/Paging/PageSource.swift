import HearthCore

/// Where the pages of one namespace come from (``PageLoader``), and what keeps them in memory
/// (``PageCache``, ``ListenedPaths``).
final class PageSource: Sendable {
    let cache: PageCache
    let listened: ListenedPaths
    private let loader: PageLoader

    init(loader: PageLoader, cache: PageCache, listened: ListenedPaths) {
        self.loader = loader
        self.cache = cache
        self.listened = listened
    }

    /// The children of the object at `path`, those in `known` taken as they are, and an estimate
    /// of their bytes in memory.
    func load(_ path: DatabasePath, known: [ChildKey: Node]) -> (ChildMap, bytes: Int) {
        loader.children(of: path, known: known, source: self)
    }

    /// Whether the object at `path` has more rows than a page reads whole.
    func isWide(_ path: DatabasePath) -> Bool {
        loader.isWide(path)
    }

    /// The node at `path`, read on its own.
    func loadChild(at path: DatabasePath) -> Node {
        loader.child(at: path, source: self)
    }

    /// The node of a tree whose root is stored at the file's root: loaded as a page.
    func root() throws(PersistenceError) -> Node {
        try loader.node(at: .root, source: self)
    }

    /// A page of the object at `path` holding `children`, which the file holds too (a write
    /// folded into the leaf rows): counted in the cache, which may drop it.
    func page(at path: DatabasePath, holding children: ChildMap) -> ChildPage {
        let bytes = Self.estimatedBytes(of: children)
        let page = ChildPage(path: path, source: self, entries: children, bytes: bytes)
        cache.adopt(page, bytes: bytes)
        return page
    }

    /// The bytes `children` take in memory, by estimate, pages below them excluded. A map of more
    /// than ``sampledChildren`` children is estimated from that many, spread evenly over it: a page
    /// made of a million imported children must not hold the engine for a walk of all of them.
    private static func estimatedBytes(of children: ChildMap) -> Int {
        let count = children.count
        guard count > sampledChildren else {
            return children.reduce(0) { $0 + estimatedBytes(of: $1.key, $1.value) }
        }
        let step = count / sampledChildren
        var bytes = 0
        for rank in stride(from: 0, to: step * sampledChildren, by: step) {
            for (key, child) in children.entries(inRanks: rank..<(rank + 1)) {
                bytes += estimatedBytes(of: key, child)
            }
        }
        return bytes / sampledChildren * count
    }

    /// How many children of a wide map ``estimatedBytes(of:)`` looks at.
    private static let sampledChildren = 1024

    /// The bytes one child and what it holds take in memory, by estimate.
    private static func estimatedBytes(of key: ChildKey, _ child: Node) -> Int {
        var bytes = 160 + key.string.utf8.count
        switch child {
        case .leaf(.string(let string), _): bytes += string.utf8.count
        case .object(let grandchildren, _) where grandchildren.page == nil: bytes += estimatedBytes(of: grandchildren)
        default: break
        }
        return bytes
    }
}
