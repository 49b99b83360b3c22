import Foundation
import HearthCore

/// A location in the database: read it (it is a ``DatabaseQuery`` of the whole location) and
/// write it.
///
/// Writes apply locally at once (observers see them before the server answers) and are sent
/// in order; a completion block, or the `async` form, reports the server's answer.
public final class DatabaseReference: DatabaseQuery, @unchecked Sendable, CustomDebugStringConvertible {
    /// A write's completion: the error (nil on success) and the reference written.
    public typealias CompletionBlock = ((any Error)?, DatabaseReference) -> Void

    init(database: Database, path: DatabasePath) {
        super.init(database: database, spec: .all(at: path))
    }

    /// Parses a path from the app ("a/b", "/a/b/"), refusing keys Firebase refuses; `.info` is
    /// allowed as the first key.
    static func parsePath(_ string: String, method: String = "child:") -> DatabasePath {
        let segments = string.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var keys: [ChildKey] = []
        for (position, segment) in segments.enumerated() {
            precondition(
                KeyValidation.isValidKey(segment) || (position == 0 && segment == ".info"),
                "(\(method)) Must be a non-empty string and not contain '.' '#' '$' '[' or ']'")
            keys.append(ChildKey(segment))
        }
        return DatabasePath(validatedKeys: keys)
    }

    func child(at relative: DatabasePath) -> DatabaseReference {
        DatabaseReference(database: database, path: path.appending(relative))
    }

    // MARK: Navigation

    /// The location `pathString` below this one.
    public func child(_ pathString: String) -> DatabaseReference {
        child(at: Self.parsePath(pathString))
    }

    /// The location above; `nil` for the root.
    public var parent: DatabaseReference? {
        path.isRoot ? nil : DatabaseReference(database: database, path: path.parent)
    }

    public var root: DatabaseReference { DatabaseReference(database: database, path: .root) }

    /// The last key of the path; `nil` for the root.
    public var key: String? { path.keys.last?.string }

    /// The location's full URL.
    public var url: String { database.databaseURL.url(of: path.description) }

    /// The location's URL, as Firebase's `description()` gives it; string interpolation of a
    /// reference shows the same.
    public func description() -> String { url }

    public var debugDescription: String { url }

    /// A new child with a unique, chronologically ordered key (a push id).
    public func childByAutoId() -> DatabaseReference {
        child(at: DatabasePath(validatedKeys: [ChildKey(repo.nextPushID())]))
    }

    // MARK: Writing

    /// `value` as the JSON a write sends, checked on the caller's thread as Firebase checks
    /// it: types, keys, depth and server values, for a write `depth` keys below the root.
    private func validated(_ value: Any?, depth: Int? = nil) -> Result<JSONValue, NSError> {
        let json: JSONValue
        do {
            json = try FoundationValue.json(value)
        } catch {
            return .failure(DatabaseErrors.invalidArgument("(setValue:) \(error.description)"))
        }
        do throws(DataError) {
            _ = try NodeBuilder(timestamp: 0).build(json, atDepth: depth ?? path.count, existing: .null)
        } catch {
            return .failure(DatabaseErrors.invalidArgument("(setValue:) \(error.message)"))
        }
        return .success(json)
    }

    private func withPriority(_ json: JSONValue, _ priority: Any?) -> Result<JSONValue, NSError> {
        validated(priority).flatMap { priorityJSON in
            switch priorityJSON {
            case .null: return .success(json)
            case .string, .number, .object:
                var members: [JSONMember]
                if case .object(let existing) = json {
                    members = existing.filter { $0.key != ".priority" }
                } else {
                    members = [JSONMember(key: ".value", value: json)]
                }
                members.append(JSONMember(key: ".priority", value: priorityJSON))
                return .success(.object(members))
            default:
                return .failure(DatabaseErrors.invalidArgument("(setPriority:) Invalid priority: must be a string, a number, or null"))
            }
        }
    }

    private func completion(_ block: CompletionBlock?) -> WriteCompletion? {
        guard let block else { return nil }
        let app = AppBlock(block)
        let reference = self
        return { error in app.call(error, reference) }
    }

    /// Reports a value the database refuses: through the block if given, else in the log.
    private func refuse(_ error: NSError, _ block: CompletionBlock?) {
        guard let block else {
            repo.logger.error("\(error.localizedDescription)")
            return
        }
        let app = AppBlock(block)
        let reference = self
        let repo = self.repo
        repo.queue.async { repo.completeNow({ app.call($0, reference) }, error: error) }
    }

    private func ensureWritable() -> NSError? {
        SyncTree.isInfo(path) ? DatabaseErrors.invalidArgument("(setValue:) Cannot modify data at a .info path") : nil
    }

    /// Checks the location and the validated input, then hands the write to `send`, or reports
    /// the problem to the block.
    private func submit<Input>(
        _ input: Result<Input, NSError>, _ block: CompletionBlock?, _ send: (Input, WriteCompletion?) -> Void
    ) {
        if let error = ensureWritable() { return refuse(error, block) }
        switch input {
        case .success(let input): send(input, completion(block))
        case .failure(let error): refuse(error, block)
        }
    }

    func write(_ json: Result<JSONValue, NSError>, at target: DatabasePath, _ block: CompletionBlock?) {
        submit(json, block) { repo.set($0, at: target, completion: $1) }
    }

    /// Replaces the data here (`nil` or `NSNull` removes it).
    public func setValue(_ value: Any?) {
        setValue(value, withCompletionBlock: nil)
    }

    public func setValue(_ value: Any?, withCompletionBlock block: CompletionBlock?) {
        write(validated(value), at: path, block)
    }

    /// Replaces the data and sets its priority.
    public func setValue(_ value: Any?, andPriority priority: Any?) {
        setValue(value, andPriority: priority, withCompletionBlock: nil)
    }

    public func setValue(_ value: Any?, andPriority priority: Any?, withCompletionBlock block: CompletionBlock?) {
        write(validated(value).flatMap { withPriority($0, priority) }, at: path, block)
    }

    /// Removes the data here.
    public func removeValue() {
        removeValue(completionBlock: nil)
    }

    public func removeValue(completionBlock block: CompletionBlock?) {
        write(.success(.null), at: path, block)
    }

    /// Sets only the priority (a number, a string, or `nil` to remove it).
    public func setPriority(_ priority: Any?) {
        setPriority(priority, withCompletionBlock: nil)
    }

    public func setPriority(_ priority: Any?, withCompletionBlock block: CompletionBlock?) {
        let json = validated(priority).flatMap { json -> Result<JSONValue, NSError> in
            switch json {
            case .null, .string, .number, .object: .success(json)
            default: .failure(DatabaseErrors.invalidArgument("(setPriority:) Invalid priority: must be a string, a number, or null"))
            }
        }
        write(json, at: path.child(DatabasePath.priorityKey), block)
    }

    /// Writes several locations at once, atomically: keys are paths relative to this one
    /// ("posts/1", "user-posts/alice/1").
    public func updateChildValues(_ values: [AnyHashable: Any]) {
        updateChildValues(values, withCompletionBlock: nil)
    }

    public func updateChildValues(_ values: [AnyHashable: Any], withCompletionBlock block: CompletionBlock?) {
        submit(updateEntries(values, method: "updateChildValues:"), block) { repo.update($0, at: path, completion: $1) }
    }

    /// The entries of an update, validated: string keys naming valid relative paths, no path
    /// an ancestor of another, values the database can store.
    func updateEntries(_ values: [AnyHashable: Any], method: String) -> Result<[(path: DatabasePath, json: JSONValue)], NSError> {
        var entries: [(path: DatabasePath, json: JSONValue)] = []
        for (key, value) in values {
            guard let key = key.base as? String, let relative = try? DatabasePath(writeLocation: key), !relative.isRoot else {
                return .failure(
                    DatabaseErrors.invalidArgument(
                        "(\(method)) Invalid key in object. Keys must be non-empty and cannot contain '.' '#' '$' '[' or ']'"))
            }
            switch validated(value, depth: path.count + relative.count) {
            case .success(let json): entries.append((relative, json))
            case .failure(let error): return .failure(error)
            }
        }
        if let (ancestor, descendant) = DatabasePath.firstOverlap(in: entries.map(\.path)) {
            return .failure(
                DatabaseErrors.invalidArgument(
                    "(\(method)) Invalid path in object. Path (\(ancestor)) is an ancestor of (\(descendant))."))
        }
        return .success(entries)
    }

    // MARK: Transactions

    /// Runs `block` on the current data and writes what it returns, retrying on newer data
    /// until the server accepts the result or the block aborts.
    public func runTransactionBlock(_ block: @escaping (MutableData) -> TransactionResult) {
        runTransactionBlock(block, andCompletionBlock: nil, withLocalEvents: true)
    }

    public func runTransactionBlock(
        _ block: @escaping (MutableData) -> TransactionResult,
        andCompletionBlock completionBlock: (((any Error)?, Bool, DataSnapshot?) -> Void)?
    ) {
        runTransactionBlock(block, andCompletionBlock: completionBlock, withLocalEvents: true)
    }

    /// `localEvents` false: observers see the result only once the server accepts it.
    public func runTransactionBlock(
        _ block: @escaping (MutableData) -> TransactionResult,
        andCompletionBlock completionBlock: (((any Error)?, Bool, DataSnapshot?) -> Void)?,
        withLocalEvents localEvents: Bool
    ) {
        precondition(!SyncTree.isInfo(path), "(runTransactionBlock:) Cannot modify data at a .info path")
        let completion = completionBlock.map { block in
            let app = AppBlock(block)
            return { @Sendable (error: (any Error)?, committed: Bool, snapshot: DataSnapshot?) in
                app.call(error, committed, snapshot)
            }
        }
        repo.startTransaction(at: path, update: AppBlock(block), completion: completion, appliesLocally: localEvents)
    }

    // MARK: onDisconnect

    /// Sets the data here when this client disconnects, on the server's side.
    public func onDisconnectSetValue(_ value: Any?) {
        onDisconnectSetValue(value, withCompletionBlock: nil)
    }

    public func onDisconnectSetValue(_ value: Any?, withCompletionBlock block: CompletionBlock?) {
        onDisconnect(validated(value), block)
    }

    public func onDisconnectSetValue(_ value: Any?, andPriority priority: Any?) {
        onDisconnectSetValue(value, andPriority: priority, withCompletionBlock: nil)
    }

    public func onDisconnectSetValue(_ value: Any?, andPriority priority: Any?, withCompletionBlock block: CompletionBlock?) {
        onDisconnect(validated(value).flatMap { withPriority($0, priority) }, block)
    }

    /// Removes the data here when this client disconnects.
    public func onDisconnectRemoveValue() {
        onDisconnectRemoveValue(completionBlock: nil)
    }

    public func onDisconnectRemoveValue(completionBlock block: CompletionBlock?) {
        onDisconnect(.success(.null), block)
    }

    /// Applies an update when this client disconnects.
    public func onDisconnectUpdateChildValues(_ values: [AnyHashable: Any]) {
        onDisconnectUpdateChildValues(values, withCompletionBlock: nil)
    }

    public func onDisconnectUpdateChildValues(_ values: [AnyHashable: Any], withCompletionBlock block: CompletionBlock?) {
        submit(updateEntries(values, method: "onDisconnectUpdateChildValues:"), block) {
            repo.onDisconnectUpdate($0, at: path, completion: $1)
        }
    }

    /// Cancels the onDisconnect writes here and below.
    public func cancelDisconnectOperations() {
        cancelDisconnectOperations(completionBlock: nil)
    }

    public func cancelDisconnectOperations(completionBlock block: CompletionBlock?) {
        repo.cancelOnDisconnect(at: path, completion: completion(block))
    }

    private func onDisconnect(_ json: Result<JSONValue, NSError>, _ block: CompletionBlock?) {
        submit(json, block) { repo.onDisconnectSet($0, at: path, completion: $1) }
    }

    // MARK: Connection

    /// Disconnects every database in use.
    public static func goOffline() {
        for database in Database.all where database.isStarted { database.goOffline() }
    }

    /// Reconnects every database in use.
    public static func goOnline() {
        for database in Database.all where database.isStarted { database.goOnline() }
    }
}
