import HearthCore
import Synchronization

/// Where the pages of one namespace come from (``PageLoader``), what keeps them in memory
/// (``PageCache``, ``ListenedPaths``), and the pages that writes replaced.
///
/// A write that replaces a subtree leaves its old pages to the trees older than it — a reader's
/// snapshot, a listener's last window — while the file is about to receive the new rows. The
/// engine *retires* the pages it replaced; before the tables rewrite any rows, the pages retired
/// and still alive are loaded from the old rows and pinned (``freezeRetired()``).
final class PageSource: Sendable {
    let cache: PageCache
    let listened: ListenedPaths
    private let loader: PageLoader
    private let retired = Mutex<[WeakPage]>([])

    private struct WeakPage {
        weak var page: ChildPage?
    }

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

    /// Closes the loader's connection.
    func close() async {
        await loader.close()
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

    /// The bytes `children` take in memory, by estimate, pages below them excluded.
    private static func estimatedBytes(of children: ChildMap) -> Int {
        var bytes = 0
        for (key, child) in children {
            bytes += 160 + key.string.utf8.count
            switch child {
            case .leaf(.string(let string), _): bytes += string.utf8.count
            case .object(let grandchildren, _) where grandchildren.page == nil: bytes += estimatedBytes(of: grandchildren)
            default: break
            }
        }
        return bytes
    }

    /// Records the pages of `before` that `after` no longer holds, at the locations `paths` a
    /// write replaced. Pages loaded are pinned at once; the others are kept for
    /// ``freezeRetired()``. Only the loaded part of `before` is visited.
    func retire(before: Node, after: Node, at paths: [DatabasePath]) {
        var unloaded: [WeakPage] = []
        for path in paths {
            let old = before.child(at: path)
            let new = after.child(at: path)
            if case .object(let oldChildren, _) = old, case .object(let newChildren, _) = new, oldChildren.isIdentical(to: newChildren) {
                continue
            }
            Self.visitPages(of: old) { page in
                if page.loadedEntries != nil {
                    page.pin()
                } else {
                    unloaded.append(WeakPage(page: page))
                }
            }
        }
        if !unloaded.isEmpty { retired.withLock { $0.append(contentsOf: unloaded) } }
    }

    /// Calls `visit` with each page in the loaded part of `node`, outermost first, without
    /// loading any.
    private static func visitPages(of node: Node, _ visit: (ChildPage) -> Void) {
        guard case .object(let children, _) = node else { return }
        let entries: ChildMap
        if let page = children.page as? ChildPage {
            visit(page)
            guard let loaded = page.loadedEntries else { return }
            entries = loaded
        } else {
            entries = children
        }
        for (_, child) in entries { visitPages(of: child, visit) }
    }

    /// Loads and pins every retired page still alive, and every page below it: the tables are
    /// about to rewrite their rows. A retired page outlives its write only in a tree a reader
    /// still holds, which reads it anyway; the others are gone by now.
    func freezeRetired() {
        let pages = retired.withLock { pages in
            defer { pages = [] }
            return pages.compactMap(\.page)
        }
        for page in pages { Self.pinAll(page) }
    }

    /// Pins `page` and every page below it, loading them.
    private static func pinAll(_ page: ChildPage) {
        page.pin()
        guard let entries = page.loadedEntries else { return }
        for (_, child) in entries { pinAll(in: child) }
    }

    private static func pinAll(in node: Node) {
        guard case .object(let children, _) = node else { return }
        if let page = children.page as? ChildPage {
            pinAll(page)
        } else {
            for (_, child) in children { pinAll(in: child) }
        }
    }
}
