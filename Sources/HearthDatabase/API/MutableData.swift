import Foundation
import HearthCore

/// The data a transaction block reads and changes. Children returned by
/// ``childData(byAppendingPath:)`` write through to the same transaction.
public final class MutableData: @unchecked Sendable {
    /// The shared value all views of one transaction run edit; confined to that run.
    final class Storage {
        var root: Node
        init(_ root: Node) { self.root = root }
    }

    private let storage: Storage
    private let path: DatabasePath

    init(node: Node) {
        storage = Storage(node)
        path = .root
    }

    private init(storage: Storage, path: DatabasePath) {
        self.storage = storage
        self.path = path
    }

    var node: Node { storage.root.child(at: path) }

    /// The value as Foundation values (`nil` when empty); setting it replaces the data, keeping
    /// nothing of the old priority unless the new value carries one.
    public var value: Any? {
        get { node.isNull ? nil : FoundationValue.plain(node) }
        set {
            do {
                let json = try FoundationValue.json(newValue)
                let built = try NodeBuilder(timestamp: 0).build(json, at: path, existing: .null)
                storage.root = storage.root.updatingChild(at: path, with: built)
            } catch {
                preconditionFailure("(MutableData.value) \(error)")
            }
        }
    }

    /// The priority: `NSNumber`, `String`, or `nil`.
    public var priority: Any? {
        get { node.priority.map { FoundationValue.priority($0) } }
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

    /// The direct children, as `MutableData` that write through.
    public var children: NSEnumerator {
        ObjectEnumerator(node.children.map { MutableData(storage: storage, path: path.child($0.key)) })
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
