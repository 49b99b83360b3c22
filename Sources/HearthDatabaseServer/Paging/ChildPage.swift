import HearthCore
import Synchronization

/// The children of one object node of a namespace, kept in the namespace's leaf rows: loaded
/// on first use, and dropped again by the ``PageCache`` while nothing needs them in memory.
///
/// A page holds what the file holds at its path for as long as it is read: a write below or
/// above it replaces it in the engine's tree with a resident copy, and the file's rows there
/// change only once a compaction folds that write in. By then, no tree that still holds the
/// page reads it: readers get resident copies (``Node/resident()``), the engine reads an older
/// tree only in the turn that replaced it, and a compaction reads the tree of its own writes,
/// whose pages no write it folds has touched.
final class ChildPage: SortedTreePage<ChildKey, Node>, @unchecked Sendable {
    let path: DatabasePath
    private let source: PageSource
    private let state = Mutex(State())
    /// Whether the page was read since the cache last looked at it.
    private let isReferenced = Atomic<Bool>(false)

    private struct State {
        var entries: ChildMap?
        /// The bytes the cache counts for the entries.
        var countedBytes = 0
        /// Whether the object has more rows than a page reads whole (`nil`: not known yet). A
        /// wide page not loaded answers a lookup of one key with a read of that child alone.
        var isWide: Bool?
        /// The children read on their own while the entries were not loaded (null: absent).
        var pointReads: [ChildKey: Node] = [:]
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

    override func entries() -> ChildMap {
        isReferenced.store(true, ordering: .relaxed)
        let (entries, loadedBytes) = state.withLock { state -> (ChildMap, Int?) in
            if let loaded = state.entries { return (loaded, nil) }
            let (loaded, bytes) = source.load(path, known: state.pointReads.filter { !$0.value.isNull })
            state.pointReads = [:]
            state.entries = loaded
            state.countedBytes = bytes
            return (loaded, bytes)
        }
        if let loadedBytes {
            source.cache.admit(self, bytes: loadedBytes)
        } else {
            source.cache.hit()
        }
        return entries
    }

    /// The most children a page not loaded keeps from lookups of one key; past it, they are
    /// forgotten and read again. They are not counted in the cache: at most this many nodes.
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
            } ?? (entries()[key], false)
        if isHit { source.cache.hit() }
        return node
    }

    /// Whether the entries are in memory; a page being loaded counts as loaded.
    var isLoaded: Bool {
        state.withLockIfAvailable { $0.entries != nil } ?? true
    }

    /// Drops the entries unless they were read since the last call, are being loaded, or a
    /// listener follows them.
    func evict() -> Eviction {
        if isReferenced.exchange(false, ordering: .relaxed) { return .kept }
        return
            state.withLockIfAvailable { state -> Eviction in
                guard state.entries != nil else { return .notLoaded }
                guard !source.listened.isListened(path) else { return .kept }
                state.entries = nil
                source.cache.release(state.countedBytes)
                state.countedBytes = 0
                return .dropped
            } ?? .kept
    }
}
