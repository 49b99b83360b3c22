import HearthCore
import Synchronization

/// The children of one object node of a namespace, kept in the namespace's leaf rows: loaded
/// on first use, and dropped again by the ``PageCache`` while nothing needs them in memory.
///
/// A page in the engine's current tree holds what the file holds at its path: a write below it
/// changes a copy of its entries and *pins* it (the page then keeps them for the older trees
/// that still hold it), and a write that replaces it retires it (``PageSource``), so that the
/// file's new rows never reach a tree older than them.
final class ChildPage: SortedTreePage<ChildKey, Node>, @unchecked Sendable {
    let path: DatabasePath
    private let source: PageSource
    private let state = Mutex(State())
    /// Whether the page was read since the cache last looked at it.
    private let isReferenced = Atomic<Bool>(false)

    private struct State {
        var entries: ChildMap?
        /// Whether the object has more rows than a page reads whole (`nil`: not known yet). A
        /// wide page not loaded answers a lookup of one key with a read of that child alone.
        var isWide: Bool?
        /// The children read on their own while the entries were not loaded (null: absent).
        var pointReads: [ChildKey: Node] = [:]
        /// Whether the entries must stay: the file may no longer hold them.
        var isPinned = false
        /// The bytes the cache counts for the entries (0 once pinned).
        var countedBytes = 0
    }

    /// What ``evict()`` did.
    enum Eviction {
        case dropped, kept, notLoaded
    }

    /// A page of the object at `path`, not loaded yet.
    init(path: DatabasePath, source: PageSource) {
        self.path = path
        self.source = source
    }

    /// A page of the object at `path` loaded with `entries`, which the file holds too, counted
    /// at `bytes`.
    init(path: DatabasePath, source: PageSource, entries: ChildMap, bytes: Int) {
        self.path = path
        self.source = source
        state.withLock { state in
            state.entries = entries
            state.countedBytes = bytes
        }
    }

    deinit {
        let bytes = state.withLock { $0.countedBytes }
        if bytes > 0 { source.cache.release(bytes) }
    }

    override func entries(pinning: Bool) -> ChildMap {
        isReferenced.store(true, ordering: .relaxed)
        let (entries, loadedBytes) = state.withLock { state -> (ChildMap, Int?) in
            var loadedBytes: Int?
            let entries: ChildMap
            if let loaded = state.entries {
                entries = loaded
            } else {
                let (loaded, bytes) = source.load(path, known: state.pointReads.filter { !$0.value.isNull })
                state.pointReads = [:]
                state.entries = loaded
                state.countedBytes = bytes
                entries = loaded
                loadedBytes = bytes
            }
            if pinning, !state.isPinned {
                state.isPinned = true
                source.cache.release(state.countedBytes)
                state.countedBytes = 0
            }
            return (entries, loadedBytes)
        }
        if let loadedBytes {
            if !pinning { source.cache.admit(self, bytes: loadedBytes) }
        } else {
            source.cache.hit()
        }
        return entries
    }

    /// The most children a page not loaded keeps from lookups of one key; past it, they are
    /// forgotten and read again.
    static let maximumPointReads = 1024

    override func value(of key: ChildKey) -> Node? {
        isReferenced.store(true, ordering: .relaxed)
        // The hit is counted here; the loads count their misses.
        let (node, isHit) =
            state.withLock { state -> (Node?, Bool)? in
                if let entries = state.entries { return (entries[key], true) }
                if let known = state.pointReads[key] { return (known.isNull ? nil : known, true) }
                if state.isWide == nil { state.isWide = source.isWide(path) }
                guard state.isWide == true else { return nil }
                source.cache.missed()
                if state.pointReads.count >= Self.maximumPointReads { state.pointReads = [:] }
                let read = source.loadChild(at: path.child(key))
                state.pointReads[key] = read
                return (read.isNull ? nil : read, false)
            } ?? (entries(pinning: false)[key], false)
        if isHit { source.cache.hit() }
        return node
    }

    /// Whether the entries are in memory and counted by the cache (loaded and not pinned); a
    /// page being loaded counts as loaded.
    var isLoaded: Bool {
        state.withLockIfAvailable { $0.entries != nil && !$0.isPinned } ?? true
    }

    /// The entries if they are in memory, without loading them.
    var loadedEntries: ChildMap? {
        state.withLock { $0.entries }
    }

    /// Loads the entries if needed and keeps them from now on: the file is about to lose them.
    func pin() {
        _ = entries(pinning: true)
    }

    /// Drops the entries unless they were read since the last call, are pinned, are being
    /// loaded, or a listener follows them.
    func evict() -> Eviction {
        if isReferenced.exchange(false, ordering: .relaxed) { return .kept }
        return
            state.withLockIfAvailable { state -> Eviction in
                guard state.entries != nil else { return .notLoaded }
                guard !state.isPinned else { return .notLoaded }
                guard !source.listened.isListened(path) else { return .kept }
                state.entries = nil
                source.cache.release(state.countedBytes)
                state.countedBytes = 0
                return .dropped
            } ?? .kept
    }
}
