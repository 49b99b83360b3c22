import Foundation
import HearthCore

/// The data a transaction block reads and changes. Children returned by
/// ``childData(byAppendingPath:)`` write through to the same transaction.
public final class MutableData: @unchecked Sendable {
    /// The shared value all views of one transaction run edit; confined to that run.
    final class Storage {
        var root: Node
        /// The server time placeholders resolve to (`ServerValue.timestamp()`).
        let serverTime: Int64
        init(_ root: Node, serverTime: Int64) {
            self.root = root
            self.serverTime = serverTime
        }
    }

    private let storage: Storage
    private let path: DatabasePath

    /// The data a transaction block starts from; server values set in it resolve against
    /// `serverTime` and the data, as the server would resolve them.
    init(node: Node, serverTime: Int64 = 0) {
        storage = Storage(node, serverTime: serverTime)
        path = .root
    }

    private init(storage: Storage, path: DatabasePath) {
        self.storage = storage
        self.path = path
    }

    var node: Node { storage.root.child(at: path) }

    /// The value as Foundation values (`NSNull` when empty); setting it replaces the data,
    /// keeping nothing of the old priority unless the new value carries one.
    public var value: Any? {
        get { FoundationValue.plain(node) }
        set {
            do {
                let json = try FoundationValue.json(newValue)
                let built = try NodeBuilder(timestamp: storage.serverTime).build(json, at: path, existing: node)
                storage.root = storage.root.updatingChild(at: path, with: built)
            } catch {
                preconditionFailure("(MutableData.value) \(error)")
            }
        }
    }

    /// The priority: `NSNumber`, `String`, or `NSNull` when there is none.
    public var priority: Any? {
        get { FoundationValue.priority(node.priority) }
        set {
            let priority: Priority?
            switch newValue {
            case let text as String: priority = .string(text)
            case let number as NSNumber: priority = .number(FoundationValue.number(number))
            default: priority = nil
            }
            storage.root = storage.root.updatingChild(at: path, with: node.withPriority(priority))
        }
    }

    /// The last part of this data's path; `nil` at the transaction's own location.
    public var key: String? { path.keys.last?.string }

    public var childrenCount: UInt { UInt(node.children.count) }

    public func hasChildren() -> Bool { !node.children.isEmpty }

    /// Whether data exists at `path` below this one.
    public func hasChild(atPath path: String) -> Bool {
        !node.child(at: DatabaseReference.parsePath(path)).isNull
    }

    /// The data at `path` below this one; changing it changes this transaction's result.
    public func childData(byAppendingPath path: String) -> MutableData {
        MutableData(storage: storage, path: self.path.appending(DatabaseReference.parsePath(path)))
    }

    /// The direct children in priority order, as `MutableData` that write through.
    public var children: NSEnumerator {
        let ordered = QueryWindow.build(.priority, children: node.children)
        return ObjectEnumerator(ordered.map { MutableData(storage: storage, path: path.child($0.key.key)) })
    }
}

/// What a transaction block decides: write a value, or stop without writing.
public struct TransactionResult: Sendable {
    let node: Node?

    /// Commit `value`'s data (the `MutableData` the block was given, usually changed).
    public static func success(withValue value: MutableData) -> TransactionResult {
        TransactionResult(node: value.node)
    }

    /// End the transaction without writing.
    public static func abort() -> TransactionResult {
        TransactionResult(node: nil)
    }
}

/// Placeholders the server fills in when it applies a write.
public enum ServerValue {
    /// The server's time of the write, in milliseconds since 1970.
    public static func timestamp() -> [AnyHashable: Any] {
        [".sv": "timestamp"]
    }

    /// The value stored at the location plus `delta` (or `delta` when no number is there).
    public static func increment(_ delta: NSNumber) -> [AnyHashable: Any] {
        [".sv": ["increment": delta]]
    }
}
