import Foundation
import HearthConnection
import HearthCore
import Logging

/// Everything behind one `Database`: the connection to its server, the sync tree, pending
/// writes, transactions and onDisconnect writes (spec §17.1).
///
/// All state is confined to ``DatabaseWorker/queue``, except observer handles and push ids,
/// which callers' threads take under locks of their own; the class is `@unchecked Sendable` so
/// API objects on any thread can hand it work with `queue.async`.
final class Repo: @unchecked Sendable {
    /// The database this repo serves. Held strongly: databases live as long as their app, and
    /// events already queued need it to make snapshots.
    let database: Database
    let queue = DatabaseWorker.queue
    let callbackQueue: DispatchQueue
    let connection: PersistentConnection
    let logger: Logger
    private(set) var syncTree: SyncTree!
    var nextWriteID = 1
    private var nextHandle: DatabaseHandle = 1
    var serverTimeOffset: Int64 = 0
    var transactions: [Transaction] = []
    /// onDisconnect writes the server accepted, by the location each replaces (JSON, server
    /// values unresolved).
    var onDisconnectWrites = PathTree<JSONValue>()
    /// The hidden registrations `keepSynced(true)` added, per query.
    var keptSynced: [QuerySpec: DatabaseHandle] = [:]
    private let pushIDs = PushIDSource()

    /// Pending writes and cached data on disk, when persistence is on.
    let diskCache: DiskCache?

    init(
        database: Database, target: ConnectionTarget, callbackQueue: DispatchQueue, diskCache: DiskCache?, logger: Logger
    ) {
        self.database = database
        self.callbackQueue = callbackQueue
        self.diskCache = diskCache
        self.logger = logger
        connection = PersistentConnection(target: target, queue: DatabaseWorker.queue, logger: logger)
        syncTree = SyncTree { [unowned self] path, node, index in makeSnapshot(path, node, index: index) }
        syncTree.diskCache = diskCache
        queue.async { [self] in
            connection.delegate = self
            var batch = EventBatch()
            syncTree.setInfo("connected", .value(.bool(false)), into: &batch)
            raise(batch)
            restoreWrites()
            startConnection()
        }
    }

    /// Closes the connection for good (the app was deleted).
    func close() {
        queue.async { [self] in connection.shutdown() }
    }

    /// Hands events and callbacks to the app's queue in order.
    func raise(_ batch: EventBatch) {
        batch.raise(on: callbackQueue)
    }

    /// The server's clock as the client estimates it, in ms since 1970.
    var serverTime: Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded()) + serverTimeOffset
    }

    /// A new push id (`childByAutoId`), made on the caller's thread.
    func nextPushID() -> String {
        pushIDs.next()
    }

    func makeSnapshot(_ path: DatabasePath, _ node: Node, index: QueryIndex = .priority) -> DataSnapshot {
        DataSnapshot(ref: DatabaseReference(database: database, path: path), node: node, index: index)
    }

    // MARK: Observers

    /// Adds an observer (`eventType` nil: hidden, receives nothing) and returns its handle,
    /// allocated on the caller's thread.
    @discardableResult
    func observe(
        _ query: QuerySpec, eventType: DataEventType?, handle: DatabaseHandle? = nil,
        onEvent: @escaping (DataSnapshot, String?) -> Void, onCancel: ((any Error) -> Void)?
    ) -> DatabaseHandle {
        let registration = EventRegistration(
            handle: handle ?? allocateHandle(), eventType: eventType, onEvent: onEvent, onCancel: onCancel)
        queue.async { [self] in addRegistration(registration, for: query) }
        return registration.handle
    }

    func addRegistration(_ registration: EventRegistration, for query: QuerySpec) {
        var batch = EventBatch()
        syncTree.add(registration, for: query, into: &batch)
        raise(batch)
        updateListens()
    }

    private let handleLock = NSLock()
    func allocateHandle() -> DatabaseHandle {
        handleLock.withLock {
            defer { nextHandle += 1 }
            return nextHandle
        }
    }

    /// Removes one observer; its queued events are dropped at once.
    func removeObserver(handle: DatabaseHandle) {
        queue.async { [self] in
            syncTree.remove(handle: handle)?.deactivate()
            updateListens()
        }
    }

    func removeAllObservers(_ query: QuerySpec) {
        queue.async { [self] in
            for registration in syncTree.removeAll(for: query) { registration.deactivate() }
            updateListens()
        }
    }

    /// `keepSynced`: one hidden registration per query, however often it is asked for.
    func keepSynced(_ query: QuerySpec, _ synced: Bool) {
        queue.async { [self] in
            if synced, keptSynced[query] == nil {
                let registration = EventRegistration(
                    handle: allocateHandle(), eventType: nil, onEvent: { _, _ in }, onCancel: nil)
                keptSynced[query] = registration.handle
                addRegistration(registration, for: query)
            } else if !synced, let handle = keptSynced.removeValue(forKey: query) {
                syncTree.remove(handle: handle)
                updateListens()
            }
        }
    }

    // MARK: Listens

    /// Sends the listens the views need and ends those they no longer need (spec §17.6).
    func updateListens() {
        let (listen, unlisten) = syncTree.reconcileListens()
        for (spec, query) in listen {
            connection.listen(
                path: spec.path, query: query, tag: spec.tag, hash: { [unowned self] in syncTree.hash(for: spec) },
                completion: { [weak self] status, warnings in self?.listenAnswered(spec, status: status, warnings: warnings) })
        }
        for (spec, query) in unlisten {
            connection.unlisten(path: spec.path, query: query, tag: spec.tag)
        }
    }

    private func listenAnswered(_ spec: ListenSpec, status: String, warnings: [String]) {
        var batch = EventBatch()
        if status == "ok" {
            if warnings.contains("no_index"), let query = syncTree.activeListens[spec] ?? nil, case .string(let index)? = query["i"] {
                logger.warning(
                    "Using an unspecified index. Your data will be downloaded and filtered on the client. Consider adding \".indexOn\": \"\(index)\" at \(spec.path) to your security rules for better performance"
                )
            }
            syncTree.listenCompleted(spec, into: &batch)
        } else {
            syncTree.listenFailed(spec, error: DatabaseErrors.listenCancelled, into: &batch)
            keptSynced = keptSynced.filter { syncTree.hasRegistration($0.value) }
        }
        raise(batch)
        if status != "ok" { updateListens() }
    }
}

/// Push ids for `childByAutoId`, made on whichever thread asks.
private final class PushIDSource: @unchecked Sendable {
    private let lock = NSLock()
    private var generator = PushIDGenerator()
    /// Read on callers' threads, written on the worker queue; guarded by `lock`.
    private var offset: Int64 = 0

    func setServerTimeOffset(_ milliseconds: Int64) {
        lock.withLock { offset = milliseconds }
    }

    func next() -> String {
        lock.withLock {
            generator.next(timestamp: Int64((Date().timeIntervalSince1970 * 1000).rounded()) + offset)
        }
    }
}

extension Repo {
    func updatePushIDOffset() {
        pushIDs.setServerTimeOffset(serverTimeOffset)
    }
}
