import HearthCore
import HearthRules
import Logging
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The single serialised writer of one namespace.
///
/// Every write — set, multi-path update, push, compare-and-set — is validated and applied to the
/// in-memory tree here, one at a time, which gives all clients one total order. A write's caller
/// resumes only after its batch is durable: writes that arrive while a commit is in flight are
/// committed together in the next one (group commit). Listener events are computed when a write
/// is applied, encoded once per location, query and format, and delivered, in write order, once
/// the write is durable.
///
/// Readers get immutable snapshots of the tree, which never change under them.
public actor NamespaceEngine {
    /// The namespace's name (`my-project-default-rtdb`).
    public nonisolated let name: String

    private var root: Node
    private var rules: RulesDocument
    private let store: NamespaceStore
    private let logger: Logger
    private var pushIDs = PushIDGenerator()
    private var indexes = IndexCache()
    private var listeners = ListenerRegistry()

    private var pendingBatch = PendingBatch()
    private var isCommitting = false
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var failure: String?

    init(name: String, store: NamespaceStore, root: Node, rules: RulesDocument, logger: Logger) {
        self.name = name
        self.store = store
        self.root = root
        self.rules = rules
        self.logger = logger
    }

    /// The current tree, or the node at `path`.
    public func read(_ path: DatabasePath = .root) -> Node {
        root.child(at: path)
    }

    /// The children at `path` that `query` selects, in index order. Ordering by value or by a
    /// child needs an `.indexOn` in the rules.
    public func query(_ path: DatabasePath, _ query: QueryParams) throws(DatabaseError) -> [(key: ChildKey, value: Node)] {
        guard rules.isIndexed(query.index, at: path) else { throw .indexNotDefined(query.index, path) }
        return select(path, query)
    }

    private func select(_ path: DatabasePath, _ query: QueryParams) -> [(key: ChildKey, value: Node)] {
        let node = root.child(at: path)
        guard query.index != .key, case .object(let children, _) = node else {
            return QueryWindow.select(query, from: node)
        }
        let index = indexes.index(at: path, by: query.index, children: children)
        return QueryWindow.select(query, from: node, sortedIndex: index)
    }

    private func window(_ path: DatabasePath, _ query: QueryParams) -> Node {
        .build(children: select(path, query).map { ($0.key, $0.value) })
    }

    // MARK: Writes

    /// Replaces the node at `path`. With `ifMatch`, writes only when the current node's ETag
    /// equals it and otherwise returns the current node unchanged.
    public func set(_ path: DatabasePath, _ json: JSONValue, ifMatch: String? = nil) async throws(DatabaseError) -> SetOutcome {
        try checkWritable()
        let before = root
        let existing = before.child(at: path)
        if let ifMatch, ifMatch != ETag.of(existing) {
            return .preconditionFailed(current: existing)
        }
        let node = try build(json, at: path, existing: existing, timestamp: Self.now())
        root = before.updatingChild(at: path, with: node)
        try await commit(AppliedWrite(path: path, kind: .set, before: before, after: root))
        return .written(node)
    }

    /// Adds `json` under a new push ID below `path` and returns that ID.
    public func push(_ path: DatabasePath, _ json: JSONValue) async throws(DatabaseError) -> String {
        try checkWritable()
        let timestamp = Self.now()
        let key = pushIDs.next(timestamp: timestamp)
        let childPath = path.child(ChildKey(key))
        let before = root
        let node = try build(json, at: childPath, existing: .null, timestamp: timestamp)
        root = before.updatingChild(at: childPath, with: node)
        try await commit(AppliedWrite(path: childPath, kind: .set, before: before, after: root))
        return key
    }

    /// Replaces each `(relative path, value)` below `path`, all or nothing.
    public func update(_ path: DatabasePath, _ entries: [(DatabasePath, JSONValue)]) async throws(DatabaseError) {
        try checkWritable()
        let absolute = entries.map { (path.appending($0.0), $0.1) }
        guard !absolute.isEmpty else { return }
        // In key order a path sorts right before the paths below it, so neighbours suffice.
        let sorted = absolute.map(\.0).sorted { $0.keys.lexicographicallyPrecedes($1.keys) }
        for (first, second) in zip(sorted, sorted.dropFirst()) where first.contains(second) {
            throw .overlappingUpdatePaths
        }
        let before = root
        let timestamp = Self.now()
        var after = before
        for (childPath, json) in absolute {
            let node = try build(json, at: childPath, existing: before.child(at: childPath), timestamp: timestamp)
            after = after.updatingChild(at: childPath, with: node)
        }
        root = after
        try await commit(AppliedWrite(path: path, kind: .merge(absolute.map(\.0)), before: before, after: after))
    }

    private func build(_ json: JSONValue, at path: DatabasePath, existing: Node, timestamp: Int64) throws(DatabaseError) -> Node {
        do {
            return try NodeBuilder(timestamp: timestamp).build(json, at: path, existing: existing)
        } catch {
            throw .invalidData(error)
        }
    }

    private func checkWritable() throws(DatabaseError) {
        if let failure { throw .unavailable(failure) }
    }

    static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    // MARK: Rules

    /// The rules document in force.
    public func currentRules() -> RulesDocument { rules }

    /// Replaces the rules document, durably.
    public func replaceRules(_ document: RulesDocument) async throws(DatabaseError) {
        do {
            try await store.setSetting(Self.rulesSetting, document.source)
        } catch {
            throw .unavailable(String(describing: error))
        }
        rules = document
    }

    static let rulesSetting = "rules"

    // MARK: Listeners

    /// Registers `sink` for changes at `location` under `query`, and returns the change that
    /// brings a new client up to date (a put of the whole location or window).
    public func addListener(
        at location: DatabasePath, query: QueryParams, format: some EventFormat, sink: any EventSink
    ) throws(DatabaseError) -> (id: ListenerID, initial: ByteBuffer) {
        if !query.loadsAllData, !rules.isIndexed(query.index, at: location) {
            throw .indexNotDefined(query.index, location)
        }
        let initial = query.loadsAllData ? root.child(at: location) : window(location, query)
        let id = listeners.add(location: location, query: query, format: format, window: initial, sink: sink)
        return (id, format.encode(.put(path: .root, node: initial), location: location, query: query))
    }

    public func removeListener(_ id: ListenerID) {
        listeners.remove(id)
    }

    // MARK: Durability and fan-out

    /// Records `write` for the next commit and waits until it is durable.
    private func commit(_ write: AppliedWrite) async throws(DatabaseError) {
        indexes.apply(write)
        let deliveries = listeners.deliveries(for: write) { location, query in window(location, query) }
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                pendingBatch.add(write.touchedPaths, deliveries: deliveries, waiter: continuation)
                if !isCommitting {
                    isCommitting = true
                    Task { await self.runCommitLoop() }
                }
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw .unavailable(String(describing: error))
        }
    }

    /// Commits batches until none is pending. While one commit is in flight the actor keeps
    /// applying writes, which then form the next batch.
    private func runCommitLoop() async {
        while !pendingBatch.isEmpty {
            let batch = pendingBatch
            pendingBatch = PendingBatch()
            let tree = root
            do {
                try await store.commit(paths: batch.paths, tree: tree)
            } catch {
                logger.critical("commit failed; namespace is read-only until restart", metadata: ["error": "\(error)"])
                failure = String(describing: error)
                batch.fail(with: DatabaseError.unavailable(String(describing: error)))
                continue
            }
            for delivery in batch.deliveries {
                for (sink, id) in zip(delivery.sinks, delivery.listenerIDs) where !sink.send(delivery.event) {
                    listeners.remove(id)
                }
            }
            batch.succeed()
        }
        isCommitting = false
        for waiter in idleWaiters { waiter.resume() }
        idleWaiters = []
    }

    /// Refuses further writes, waits until every applied write is durable, and closes the store.
    func close() async {
        failure = "the server is shutting down"
        if isCommitting {
            await withCheckedContinuation { idleWaiters.append($0) }
        }
        await store.close()
    }
}

/// The result of a (possibly conditional) set.
public enum SetOutcome: Sendable, Equatable {
    /// The node now stored.
    case written(Node)
    /// The condition did not hold; nothing was written. Carries the current node.
    case preconditionFailed(current: Node)
}

/// Writes applied but not yet durable.
private struct PendingBatch {
    private(set) var paths: [DatabasePath] = []
    private(set) var deliveries: [ListenerRegistry.Delivery] = []
    private var waiters: [CheckedContinuation<Void, any Error>] = []

    var isEmpty: Bool { waiters.isEmpty }

    mutating func add(
        _ touched: [DatabasePath], deliveries: [ListenerRegistry.Delivery], waiter: CheckedContinuation<Void, any Error>
    ) {
        paths.append(contentsOf: touched)
        self.deliveries.append(contentsOf: deliveries)
        waiters.append(waiter)
    }

    func succeed() {
        for waiter in waiters { waiter.resume() }
    }

    func fail(with error: any Error) {
        for waiter in waiters { waiter.resume(throwing: error) }
    }
}
