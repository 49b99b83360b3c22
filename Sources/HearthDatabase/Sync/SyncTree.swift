import HearthCore

/// The client's picture of the database (spec §17.1): the server cache, the pending writes,
/// the `.info` values, and the views observers registered, which it keeps current and turns
/// into events.
///
/// Every method runs on the repo's worker queue.
final class SyncTree {
    /// The first key of the client-only `.info` tree.
    static let infoKey = ChildKey(".info")

    private(set) var serverCache = ServerCache()
    private(set) var writes = WriteTree()
    /// The `.info` values below `/.info`.
    private var info: Node = .null
    private var views = PathTree<[View]>()
    private var viewsByTag: [Int: View] = [:]
    private var viewsByHandle: [DatabaseHandle: View] = [:]
    private var nextTag = 1
    /// Listens sent to the server, with the `q` each was sent with.
    private(set) var activeListens: [ListenSpec: JSONValue?] = [:]
    private let makeSnapshot: (DatabasePath, Node, QueryIndex) -> DataSnapshot
    /// The disk copy of the server cache, when persistence is on.
    var diskCache: DiskCache?

    init(makeSnapshot: @escaping (DatabasePath, Node, QueryIndex) -> DataSnapshot) {
        self.makeSnapshot = makeSnapshot
    }

    static func isInfo(_ path: DatabasePath) -> Bool { path.keys.first == infoKey }

    // MARK: Observers

    /// Adds an observer of `query` and raises its initial events (spec §17.4.6).
    func add(_ registration: EventRegistration, for query: QuerySpec, into batch: inout EventBatch) {
        let view = self.view(for: query) ?? makeView(for: query)
        view.add(registration)
        viewsByHandle[registration.handle] = view
        guard let eventType = registration.eventType else { return }
        let index = query.params.index
        if eventType == .childAdded {
            var previous: ChildKey?
            for (key, node) in view.orderedChildren {
                batch.event(
                    registration, makeSnapshot(query.path.child(key), node, index), previousSiblingKey: previous?.string)
                previous = key
            }
        }
        if eventType == .value, view.isEventCacheComplete {
            batch.event(registration, makeSnapshot(query.path, view.eventCache, index), previousSiblingKey: nil)
        }
    }

    func hasRegistration(_ handle: DatabaseHandle) -> Bool { viewsByHandle[handle] != nil }

    /// Removes the observer with `handle`; returns it when it existed.
    @discardableResult
    func remove(handle: DatabaseHandle) -> EventRegistration? {
        guard let view = viewsByHandle.removeValue(forKey: handle) else { return nil }
        let removed = view.remove(handle: handle)
        dropIfEmpty(view)
        return removed.first
    }

    /// Removes every visible observer of `query`; for a load-all query, of every query at its
    /// path, as Firebase's `removeAllObservers` does.
    func removeAll(for query: QuerySpec) -> [EventRegistration] {
        let targets = (views.value(at: query.path) ?? []).filter { query.loadsAllData || $0.query == query }
        var removed: [EventRegistration] = []
        for view in targets {
            let dropped = view.remove(handle: nil)
            for registration in dropped { viewsByHandle[registration.handle] = nil }
            removed += dropped
            dropIfEmpty(view)
        }
        return removed
    }

    private func view(for query: QuerySpec) -> View? {
        views.value(at: query.path)?.first { $0.query == query }
    }

    private func makeView(for query: QuerySpec) -> View {
        var tag: Int?
        if !query.loadsAllData && !Self.isInfo(query.path) {
            tag = nextTag
            nextTag += 1
        }
        let view = View(query: query, tag: tag)
        if let tag { viewsByTag[tag] = view }
        loadFromDisk(for: view)
        views.set((views.value(at: query.path) ?? []) + [view], at: query.path)
        _ = view.update(to: localValue(for: view), changedKeys: nil)
        return view
    }

    private func dropIfEmpty(_ view: View) {
        guard view.isEmpty else { return }
        let remaining = (views.value(at: view.path) ?? []).filter { $0 !== view }
        views.set(remaining.isEmpty ? nil : remaining, at: view.path)
        if let tag = view.tag { viewsByTag[tag] = nil }
    }

    // MARK: Listens

    /// The listens the views need now (spec §17.6.2): a default listen per load-all view with
    /// no load-all view above it, and a tagged listen per other view with none at or above.
    private func neededListens() -> [ListenSpec: JSONValue?] {
        var needed: [ListenSpec: JSONValue?] = [:]
        for (path, pathViews) in views.valuesTopDown() where !Self.isInfo(path) {
            let coveredAbove = views.valuesOnPath(to: path).contains { entry in
                entry.path != path && entry.value.contains { $0.tag == nil }
            }
            if coveredAbove { continue }
            if pathViews.contains(where: { $0.tag == nil }) {
                needed[ListenSpec(path: path, tag: nil)] = .some(nil)
                continue
            }
            for view in pathViews {
                guard let tag = view.tag else { continue }
                needed[ListenSpec(path: path, tag: tag)] = .some(view.query.wireObject)
            }
        }
        return needed
    }

    /// Brings the active listens in line with the views: returns the listens to send (first)
    /// and those to end, and forgets cached data no listen keeps current any more.
    func reconcileListens() -> (listen: [(ListenSpec, JSONValue?)], unlisten: [(ListenSpec, JSONValue?)]) {
        let needed = neededListens()
        let added = needed.filter { activeListens[$0.key] == nil }.sorted { $0.key.path.count < $1.key.path.count }
        let removed = activeListens.filter { needed[$0.key] == nil }.sorted { $0.key.path.count < $1.key.path.count }
        for (spec, _) in added {
            if let tag = spec.tag, let view = viewsByTag[tag], serverCache.isComplete(spec.path) {
                view.taggedCache = view.query.window(of: serverCache.node(at: spec.path))
                view.isTaggedCacheComplete = true
            }
        }
        activeListens = needed
        for (spec, _) in removed where spec.tag == nil && !isCoveredByDefaultListen(spec.path) {
            forgetDefaultListen(at: spec.path)
        }
        return (added.map { ($0.key, $0.value) }, removed.map { ($0.key, $0.value) })
    }

    /// Drops the cached data a default listen at `path` kept current, except under the default
    /// listens still active below it.
    private func forgetDefaultListen(at path: DatabasePath) {
        let kept = activeListens.keys.filter { $0.tag == nil && path.contains($0.path) }.map(\.path)
        serverCache.forget(path, keeping: kept)
    }

    /// The default listens strictly below `path`.
    private func defaultListens(below path: DatabasePath) -> [DatabasePath] {
        activeListens.keys.filter { $0.tag == nil && $0.path != path && path.contains($0.path) }.map(\.path)
    }

    private func isCoveredByDefaultListen(_ path: DatabasePath) -> Bool {
        activeListens.keys.contains { $0.tag == nil && $0.path.contains(path) }
    }

    /// The `h` of a listen: the hash of what the client holds for it, `""` when incomplete.
    func hash(for spec: ListenSpec) -> String {
        if let tag = spec.tag {
            guard let view = viewsByTag[tag], view.isTaggedCacheComplete, let cache = view.taggedCache else { return "" }
            return NodeHash.hash(cache)
        }
        guard serverCache.isComplete(spec.path) else { return "" }
        return NodeHash.hash(serverCache.node(at: spec.path))
    }

    /// A listen's `ok` (spec §17.6.5): its data is complete, null if none came.
    func listenCompleted(_ spec: ListenSpec, into batch: inout EventBatch) {
        guard activeListens[spec] != nil else { return }
        if let tag = spec.tag {
            guard let view = viewsByTag[tag] else { return }
            view.taggedCache = view.taggedCache ?? .null
            view.isTaggedCacheComplete = true
            refresh([view], around: spec.path, into: &batch)
        } else {
            serverCache.markComplete(spec.path)
            persist(spec.path)
            refresh(around: spec.path, into: &batch)
        }
    }

    /// A refused or revoked listen (spec §17.6.6): cancels the views it served and returns the
    /// observers removed, each told through its cancel block.
    func listenFailed(_ spec: ListenSpec, error: any Error & Sendable, into batch: inout EventBatch) {
        activeListens[spec] = nil
        if spec.tag == nil && !isCoveredByDefaultListen(spec.path) { forgetDefaultListen(at: spec.path) }
        let targets: [View]
        if let tag = spec.tag {
            targets = viewsByTag[tag].map { [$0] } ?? []
        } else {
            targets = views.value(at: spec.path) ?? []
        }
        for view in targets {
            for registration in view.removeAll() {
                viewsByHandle[registration.handle] = nil
                batch.cancel(registration, error)
            }
            dropIfEmpty(view)
        }
    }

    /// The server revoked every listen at `path` (a `c` push).
    func listensRevoked(at path: DatabasePath, error: any Error & Sendable, into batch: inout EventBatch) {
        for spec in activeListens.keys where spec.path == path {
            listenFailed(spec, error: error, into: &batch)
        }
    }

    // MARK: Server data

    /// Data the server pushed (spec §17.6.7): untagged data updates every view on its path,
    /// tagged data only its own view; data nothing listens to is dropped.
    /// `overwrites` hold one entry at the relative root for a `d` push, and one per key for an
    /// `m` push.
    func applyServerData(
        at path: DatabasePath, overwrites: [(path: DatabasePath, node: Node)], isMerge: Bool, tag: Int?,
        into batch: inout EventBatch
    ) {
        let mergeKeys = isMerge ? Set(overwrites.compactMap { $0.path.keys.first }) : nil
        if let tag {
            guard let view = viewsByTag[tag], activeListens[ListenSpec(path: view.path, tag: tag)] != nil else { return }
            applyToTaggedCache(view, overwrites.map { (path.appending($0.path), $0.node) })
            refresh([view], around: path, mergeKeys: mergeKeys, into: &batch)
            return
        }
        let absolute = overwrites.map { (path: path.appending($0.path), node: $0.node) }
        for (target, node) in absolute {
            // Data at a listened location, or above listened ones (an onDisconnect write fired
            // locally, a `getData` answer), updates what those listens keep current.
            let locations = isCoveredByDefaultListen(target) ? [target] : defaultListens(below: target)
            for location in locations {
                serverCache.overwrite(node.child(at: target.relativePath(to: location)!), at: location)
                persist(location)
            }
        }
        for view in taggedViews(relatedTo: path) { applyToTaggedCache(view, absolute) }
        refresh(around: path, mergeKeys: mergeKeys, into: &batch)
    }

    private func taggedViews(relatedTo path: DatabasePath) -> [View] {
        viewsByTag.values.filter { $0.path.contains(path) || path.contains($0.path) }
    }

    /// Lays server data over a tagged view's window, then trims it to the window once, so
    /// that a merge's removals make room before its additions are judged.
    private func applyToTaggedCache(_ view: View, _ overwrites: [(path: DatabasePath, node: Node)]) {
        var cache = view.taggedCache
        for (path, node) in overwrites {
            if path.contains(view.path), let relative = path.relativePath(to: view.path) {
                cache = node.child(at: relative)
                view.isTaggedCacheComplete = true
            } else if let current = cache, let relative = view.path.relativePath(to: path), let key = relative.keys.first,
                relative.count == 1 || current.children[key] != nil
            {
                cache = current.writing(node, at: relative)
            }
        }
        view.taggedCache = cache.map(view.query.window(of:))
    }

    // MARK: Disk cache

    /// A new view starts from the disk cache when memory does not know its location (spec
    /// §17.11.4): a load-all view from the location whole, or else from the children the disk
    /// holds whole; a filtered view from its window of the stored location, kept as its own.
    private func loadFromDisk(for view: View) {
        let path = view.path
        guard let diskCache, !Self.isInfo(path), !serverCache.isComplete(path) else { return }
        if view.tag != nil {
            if let node = diskCache.node(at: path) {
                view.taggedCache = view.query.window(of: node)
                view.isTaggedCacheComplete = true
            }
            return
        }
        if let node = diskCache.node(at: path) {
            serverCache.overwrite(node, at: path)
            return
        }
        for key in diskCache.completeChildren(of: path) where !serverCache.isComplete(path.child(key)) {
            if let node = diskCache.node(at: path.child(key)) { serverCache.overwrite(node, at: path.child(key)) }
        }
    }

    /// Copies the server cache's new data at `target` to disk, under the top-most default
    /// listen that covers it.
    private func persist(_ changed: DatabasePath) {
        guard let diskCache else { return }
        let target = changed.priorityOwner ?? changed
        let defaultListens = activeListens.keys.filter { $0.tag == nil }.map(\.path)
        guard let location = defaultListens.filter({ $0.contains(target) }).min(by: { $0.count < $1.count }) else { return }
        if target == location {
            diskCache.storeLocation(location, serverCache.node(at: location))
        } else {
            let key = target.keys[location.count]
            diskCache.storeChild(key, of: location, serverCache.node(at: location.child(key)))
        }
        diskCache.pruneIfNeeded(keeping: defaultListens)
    }

    // MARK: .info

    /// Sets a `.info` value (`connected`, `serverTimeOffset`, …).
    func setInfo(_ key: String, _ node: Node, into batch: inout EventBatch) {
        let path = DatabasePath(validatedKeys: [Self.infoKey, ChildKey(key)])
        info = info.updatingChild(ChildKey(key), with: node)
        refresh(around: path, into: &batch)
    }

    // MARK: User writes

    /// Applies a local write at once (spec §17.2): observers see it before the server answers.
    func applyUserWrite(_ write: UserWrite, into batch: inout EventBatch) {
        writes.add(write)
        guard write.isVisible else { return }
        let keys: Set<ChildKey>? =
            if case .merge(let entries) = write.change { Set(entries.compactMap { $0.path.keys.first }) } else { nil }
        refresh(around: write.path, mergeKeys: keys, into: &batch)
    }

    /// The server answered a write: `revert` undoes it (refused), else the server's data,
    /// already received, takes over (spec §17.3).
    func removeUserWrite(id: Int, into batch: inout EventBatch) {
        guard let write = writes.remove(id: id), write.isVisible else { return }
        refresh(around: write.path, into: &batch)
    }

    /// Removes every pending write and raises the events that undo them; returns them.
    func removeAllUserWrites(into batch: inout EventBatch) -> [UserWrite] {
        let removed = writes.removeAll()
        for write in removed where write.isVisible { refresh(around: write.path, into: &batch) }
        return removed
    }

    // MARK: Values

    /// What observers of `view` should see now: its server data with the visible writes on top.
    private func localValue(for view: View) -> LocalValue {
        if Self.isInfo(view.path) {
            let node = info.child(at: DatabasePath(validatedKeys: Array(view.path.keys.dropFirst())))
            return LocalValue(node: node, isComplete: !node.isNull)
        }
        if !serverCache.isComplete(view.path), let cache = view.taggedCache, view.isTaggedCacheComplete {
            return writes.overlay(LocalValue(node: cache, isComplete: true), at: view.path)
        }
        return writes.overlay(serverValue(at: view.path), at: view.path)
    }

    /// The server cache's knowledge of `path`.
    private func serverValue(at path: DatabasePath) -> LocalValue {
        if serverCache.isComplete(path) { return LocalValue(node: serverCache.node(at: path), isComplete: true) }
        let stored = serverCache.node(at: path)
        let keys = serverCache.completeChildren(of: path)
        let node = Node.build(children: keys.map { ($0, stored.child($0)) })
        return LocalValue(node: node, isComplete: false, knownKeys: Set(keys))
    }

    /// The latest value at `path` for transactions, server values and `getData` (spec
    /// §17.8.1): the server's value when it is known whole (else nothing: a transaction never
    /// starts from part of a value) with every pending write, invisible ones included, except
    /// those in `excluded`.
    func latestValue(at path: DatabasePath, excluding excluded: Set<Int> = []) -> LocalValue {
        let server = serverValue(at: path)
        let base = server.isComplete ? server : LocalValue(node: .null, isComplete: false)
        return writes.overlay(base, at: path, includingHidden: true, excluding: excluded)
    }

    // MARK: Events

    /// Recomputes the views at, below and above `path` (deepest first) and raises their events.
    private func refresh(around path: DatabasePath, mergeKeys: Set<ChildKey>? = nil, into batch: inout EventBatch) {
        var affected: [View] = []
        if let below = views.subtree(at: path) {
            for (_, pathViews) in below.valuesDeepestFirst(under: path) { affected += pathViews }
        }
        for (viewPath, pathViews) in views.valuesOnPath(to: path).reversed() where viewPath != path {
            affected += pathViews
        }
        refresh(affected, around: path, mergeKeys: mergeKeys, into: &batch)
    }

    private func refresh(_ affected: [View], around path: DatabasePath, mergeKeys: Set<ChildKey>? = nil, into batch: inout EventBatch) {
        for view in affected {
            let changedKeys: Set<ChildKey>? =
                if view.path == path { mergeKeys } else if path.count > view.path.count && view.path.contains(path) {
                    [path.keys[view.path.count]]
                } else { nil }
            let change = view.update(to: localValue(for: view), changedKeys: changedKeys)
            raiseEvents(change, in: view, into: &batch)
        }
    }

    /// Turns one view's change into events in Firebase's order (spec §17.4.3).
    private func raiseEvents(_ change: ViewChange, in view: View, into batch: inout EventBatch) {
        guard !change.isEmpty, view.hasVisibleObservers else { return }
        let index = view.query.params.index
        func sorted(_ changes: [ChildChange], by node: (ChildChange) -> Node) -> [ChildChange] {
            guard !view.isKeyOrdered else { return changes }
            return changes.map { (entry: view.entry($0.key, node($0)), change: $0) }.sorted { $0.entry < $1.entry }.map(\.change)
        }
        let removed = sorted(change.children.filter { $0.new == nil }) { $0.old! }
        let added = sorted(change.children.filter { $0.old == nil }) { $0.new! }
        let changed = sorted(change.children.filter { $0.old != nil && $0.new != nil }) { $0.new! }
        let moved = changed.filter { view.indexedValueChanged(from: $0.old!, to: $0.new!, key: $0.key) }
        let previousKeys = previousKeyLookup(for: view, changes: change.children.count)
        func raise(_ changes: [ChildChange], as type: DataEventType) {
            let observers = view.registrations.filter { $0.eventType == type }
            guard !observers.isEmpty else { return }
            for change in changes {
                let node = change.new ?? change.old ?? .null
                let snapshot = makeSnapshot(view.path.child(change.key), node, index)
                let previous = type == .childRemoved ? nil : previousKeys(change.key)?.string
                for observer in observers { batch.event(observer, snapshot, previousSiblingKey: previous) }
            }
        }
        raise(removed, as: .childRemoved)
        raise(added, as: .childAdded)
        raise(moved, as: .childMoved)
        raise(changed, as: .childChanged)
        if change.valueChanged {
            let observers = view.registrations.filter { $0.eventType == .value }
            guard !observers.isEmpty else { return }
            let snapshot = makeSnapshot(view.path, view.eventCache, index)
            for observer in observers { batch.event(observer, snapshot, previousSiblingKey: nil) }
        }
    }

    /// How to find the child before another in `view`'s new order: a search per child for a few
    /// changes, one walk of the whole order when many children changed (a first load).
    private func previousKeyLookup(for view: View, changes: Int) -> (ChildKey) -> ChildKey? {
        guard changes > 64 else { return { view.previousKey(before: $0) } }
        var previous: [ChildKey: ChildKey] = [:]
        previous.reserveCapacity(view.eventCache.children.count)
        var last: ChildKey?
        for (key, _) in view.orderedChildren {
            if let last { previous[key] = last }
            last = key
        }
        return { previous[$0] }
    }
}
