import Foundation
import HearthCore

/// A location with an order, a range and a limit: what observers and one-shot reads look at.
/// `DatabaseReference` is the query of a whole location.
public class DatabaseQuery: @unchecked Sendable {
    /// The database this query reads.
    public let database: Database
    let spec: QuerySpec

    init(database: Database, spec: QuerySpec) {
        self.database = database
        self.spec = spec
    }

    var path: DatabasePath { spec.path }
    var repo: Repo { database.repo }

    /// A reference to the query's location.
    public var ref: DatabaseReference { DatabaseReference(database: database, path: path) }

    // MARK: Observing

    /// Calls `block` for every event of `eventType` until the observer is removed.
    @discardableResult
    public func observe(_ eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void) -> DatabaseHandle {
        observe(eventType, andPreviousSiblingKeyWith: { snapshot, _ in block(snapshot) }, withCancel: nil)
    }

    /// Like ``observe(_:with:)``; `cancelBlock` runs once if the server refuses or revokes the
    /// read, after which the observer is removed.
    @discardableResult
    public func observe(
        _ eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void,
        withCancel cancelBlock: ((any Error) -> Void)?
    ) -> DatabaseHandle {
        observe(eventType, andPreviousSiblingKeyWith: { snapshot, _ in block(snapshot) }, withCancel: cancelBlock)
    }

    /// Calls `block` with each event and the key of the sibling before the child.
    @discardableResult
    public func observe(
        _ eventType: DataEventType, andPreviousSiblingKeyWith block: @escaping (DataSnapshot, String?) -> Void
    ) -> DatabaseHandle {
        observe(eventType, andPreviousSiblingKeyWith: block, withCancel: nil)
    }

    @discardableResult
    public func observe(
        _ eventType: DataEventType, andPreviousSiblingKeyWith block: @escaping (DataSnapshot, String?) -> Void,
        withCancel cancelBlock: ((any Error) -> Void)?
    ) -> DatabaseHandle {
        repo.observe(spec, eventType: eventType, onEvent: block, onCancel: cancelBlock)
    }

    /// Calls `block` for the first event of `eventType`, then stops observing.
    public func observeSingleEvent(of eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void) {
        observeSingleEvent(of: eventType, andPreviousSiblingKeyWith: { snapshot, _ in block(snapshot) }, withCancel: nil)
    }

    public func observeSingleEvent(
        of eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void,
        withCancel cancelBlock: ((any Error) -> Void)?
    ) {
        observeSingleEvent(of: eventType, andPreviousSiblingKeyWith: { snapshot, _ in block(snapshot) }, withCancel: cancelBlock)
    }

    public func observeSingleEvent(
        of eventType: DataEventType, andPreviousSiblingKeyWith block: @escaping (DataSnapshot, String?) -> Void
    ) {
        observeSingleEvent(of: eventType, andPreviousSiblingKeyWith: block, withCancel: nil)
    }

    public func observeSingleEvent(
        of eventType: DataEventType, andPreviousSiblingKeyWith block: @escaping (DataSnapshot, String?) -> Void,
        withCancel cancelBlock: ((any Error) -> Void)?
    ) {
        let once = SingleEventGate()
        let repo = self.repo
        let handle = repo.allocateHandle()
        repo.observe(
            spec, eventType: eventType, handle: handle,
            onEvent: { snapshot, previous in
                guard once.open() else { return }
                repo.removeObserver(handle: handle)
                block(snapshot, previous)
            }, onCancel: cancelBlock)
    }

    /// The first event of `eventType`.
    public func observeSingleEvent(of eventType: DataEventType) async -> DataSnapshot {
        await observeSingleEventAndPreviousSiblingKey(of: eventType).0
    }

    /// The first event of `eventType`, with the key of the sibling before the child.
    public func observeSingleEventAndPreviousSiblingKey(of eventType: DataEventType) async -> (DataSnapshot, String?) {
        await withCheckedContinuation { continuation in
            observeSingleEvent(of: eventType, andPreviousSiblingKeyWith: { continuation.resume(returning: ($0, $1)) })
        }
    }

    /// The latest value: from memory when this client already has it whole, else from the
    /// server.
    public func getData(completion block: @escaping ((any Error)?, DataSnapshot?) -> Void) {
        let block = AppBlock(block)
        repo.getData(spec) { error, snapshot in block.call(error, snapshot) }
    }

    public func getData() async throws -> DataSnapshot {
        try await withCheckedThrowingContinuation { continuation in
            repo.getData(spec) { error, snapshot in
                if let snapshot { continuation.resume(returning: snapshot) } else { continuation.resume(throwing: error!) }
            }
        }
    }

    /// Removes the observer `handle` returned.
    public func removeObserver(withHandle handle: DatabaseHandle) {
        repo.removeObserver(handle: handle)
    }

    /// Removes every observer of this query (of every query at this location, for a reference).
    public func removeAllObservers() {
        repo.removeAllObservers(spec)
    }

    /// Keeps the query's data synced (and cached) while `keepSynced` is true, observed or not.
    public func keepSynced(_ keepSynced: Bool) {
        precondition(!SyncTree.isInfo(path), "Can't call keepSynced() on .info paths.")
        repo.keepSynced(spec, keepSynced)
    }

    // MARK: Building queries

    /// Whether an order was chosen; a query takes one order at most.
    private var orderingSet = false

    private func with(_ change: (inout QueryParams) -> Void) -> DatabaseQuery {
        var params = spec.params
        change(&params)
        let query = DatabaseQuery(database: database, spec: QuerySpec(path: path, params: params))
        query.orderingSet = orderingSet
        return query
    }

    /// At most `limit` children from the start of the order.
    public func queryLimited(toFirst limit: UInt) -> DatabaseQuery {
        precondition(limit > 0, "Limit can't be zero")
        precondition(spec.params.limit == nil, "Can't call queryLimitedToFirst: if a limit was previously set")
        return with {
            $0.limit = Int(limit)
            $0.anchor = .first
        }
    }

    /// At most `limit` children from the end of the order.
    public func queryLimited(toLast limit: UInt) -> DatabaseQuery {
        precondition(limit > 0, "Limit can't be zero")
        precondition(spec.params.limit == nil, "Can't call queryLimitedToLast: if a limit was previously set")
        return with {
            $0.limit = Int(limit)
            $0.anchor = .last
        }
    }

    public func queryOrdered(byChild key: String) -> DatabaseQuery {
        let childPath = DatabaseReference.parsePath(key)
        precondition(!childPath.isRoot, "(queryOrderedByChild:) Invalid path: use queryOrderedByValue instead")
        return ordered(by: .child(childPath), "queryOrderedByChild:")
    }

    public func queryOrderedByKey() -> DatabaseQuery { ordered(by: .key, "queryOrderedByKey") }

    public func queryOrderedByValue() -> DatabaseQuery { ordered(by: .value, "queryOrderedByValue") }

    public func queryOrderedByPriority() -> DatabaseQuery { ordered(by: .priority, "queryOrderedByPriority") }

    private func ordered(by index: QueryIndex, _ method: String) -> DatabaseQuery {
        precondition(!orderingSet, "Cannot use multiple queryOrderedBy calls!")
        let query = with { $0.index = index }
        query.orderingSet = true
        return query
    }

    public func queryStarting(atValue startValue: Any?) -> DatabaseQuery {
        queryStarting(atValue: startValue, childKey: nil)
    }

    public func queryStarting(atValue startValue: Any?, childKey: String?) -> DatabaseQuery {
        bounded(start: bound(startValue, childKey, inclusive: true, "queryStartingAtValue:"))
    }

    public func queryStarting(afterValue startAfterValue: Any?) -> DatabaseQuery {
        queryStarting(afterValue: startAfterValue, childKey: nil)
    }

    public func queryStarting(afterValue startAfterValue: Any?, childKey: String?) -> DatabaseQuery {
        bounded(start: bound(startAfterValue, childKey, inclusive: false, "queryStartingAfterValue:"))
    }

    public func queryEnding(atValue endValue: Any?) -> DatabaseQuery {
        queryEnding(atValue: endValue, childKey: nil)
    }

    public func queryEnding(atValue endValue: Any?, childKey: String?) -> DatabaseQuery {
        bounded(end: bound(endValue, childKey, inclusive: true, "queryEndingAtValue:"))
    }

    public func queryEnding(beforeValue endValue: Any?) -> DatabaseQuery {
        queryEnding(beforeValue: endValue, childKey: nil)
    }

    public func queryEnding(beforeValue endValue: Any?, childKey: String?) -> DatabaseQuery {
        bounded(end: bound(endValue, childKey, inclusive: false, "queryEndingBeforeValue:"))
    }

    public func queryEqual(toValue value: Any?) -> DatabaseQuery {
        queryEqual(toValue: value, childKey: nil)
    }

    public func queryEqual(toValue value: Any?, childKey: String?) -> DatabaseQuery {
        let start = bound(value, childKey, inclusive: true, "queryEqualToValue:")
        return bounded(start: start, end: start)
    }

    private func bounded(start: QueryParams.Bound? = nil, end: QueryParams.Bound? = nil) -> DatabaseQuery {
        precondition(start == nil || spec.params.start == nil, "Can't call queryStartingAtValue: after a start was previously set")
        precondition(end == nil || spec.params.end == nil, "Can't call queryEndingAtValue: after an end was previously set")
        return with {
            if let start { $0.start = start }
            if let end { $0.end = end }
        }
    }

    private func bound(_ value: Any?, _ childKey: String?, inclusive: Bool, _ method: String) -> QueryParams.Bound {
        guard let json = try? FoundationValue.json(value), let indexValue = IndexValue(bound: json) else {
            preconditionFailure(
                "(\(method)) Cannot store object of type \(type(of: value)) as a query bound. Can only use NSNumber, NSString, Boolean and NSNull"
            )
        }
        if spec.params.index == .key {
            precondition(childKey == nil, "(\(method)) You must not specify a key when using queryOrderedByKey.")
            guard case .string = indexValue else {
                preconditionFailure("(\(method)) Can only use string values when using queryOrderedByKey.")
            }
        }
        if let childKey {
            precondition(KeyValidation.isValidKey(childKey), "(\(method)) Invalid key: \(childKey)")
            return QueryParams.Bound(value: indexValue, key: .key(ChildKey(childKey)), inclusive: inclusive)
        }
        return QueryParams.Bound(value: indexValue, inclusive: inclusive)
    }
}

/// Lets a single-event observer fire once even when two events are already queued.
private final class SingleEventGate: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false

    func open() -> Bool {
        lock.withLock {
            defer { fired = true }
            return !fired
        }
    }
}
