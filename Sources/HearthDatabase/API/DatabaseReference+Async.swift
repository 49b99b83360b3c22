import Foundation

/// The `async` forms of the writes: each returns when the server accepted the write and throws
/// the error its completion block would get.
extension DatabaseReference {
    private func awaitWrite(_ start: (@escaping CompletionBlock) -> Void) async throws -> DatabaseReference {
        try await withCheckedThrowingContinuation { continuation in
            start { error, reference in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: reference) }
            }
        }
    }

    @discardableResult
    public func setValue(_ value: Any?) async throws -> DatabaseReference {
        try await awaitWrite { setValue(value, withCompletionBlock: $0) }
    }

    @discardableResult
    public func setValue(_ value: Any?, andPriority priority: Any?) async throws -> DatabaseReference {
        try await awaitWrite { setValue(value, andPriority: priority, withCompletionBlock: $0) }
    }

    @discardableResult
    public func removeValue() async throws -> DatabaseReference {
        try await awaitWrite { removeValue(completionBlock: $0) }
    }

    @discardableResult
    public func setPriority(_ priority: Any?) async throws -> DatabaseReference {
        try await awaitWrite { setPriority(priority, withCompletionBlock: $0) }
    }

    @discardableResult
    public func updateChildValues(_ values: [AnyHashable: Any]) async throws -> DatabaseReference {
        try await awaitWrite { updateChildValues(values, withCompletionBlock: $0) }
    }

    @discardableResult
    public func onDisconnectSetValue(_ value: Any?) async throws -> DatabaseReference {
        try await awaitWrite { onDisconnectSetValue(value, withCompletionBlock: $0) }
    }

    @discardableResult
    public func onDisconnectSetValue(_ value: Any?, andPriority priority: Any?) async throws -> DatabaseReference {
        try await awaitWrite { onDisconnectSetValue(value, andPriority: priority, withCompletionBlock: $0) }
    }

    @discardableResult
    public func onDisconnectRemoveValue() async throws -> DatabaseReference {
        try await awaitWrite { onDisconnectRemoveValue(completionBlock: $0) }
    }

    @discardableResult
    public func onDisconnectUpdateChildValues(_ values: [AnyHashable: Any]) async throws -> DatabaseReference {
        try await awaitWrite { onDisconnectUpdateChildValues(values, withCompletionBlock: $0) }
    }

    @discardableResult
    public func cancelDisconnectOperations() async throws -> DatabaseReference {
        try await awaitWrite { cancelDisconnectOperations(completionBlock: $0) }
    }

    /// Runs a transaction; returns whether it committed and the data it ended with, and throws
    /// when it failed (aborting in the block is not a failure: it returns `false`).
    public func runTransactionBlock(_ block: @escaping (MutableData) -> TransactionResult) async throws -> (Bool, DataSnapshot) {
        let reference = self
        return try await withCheckedThrowingContinuation { continuation in
            runTransactionBlock(block) { error, committed, snapshot in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: (committed, snapshot ?? DataSnapshot(ref: reference, node: .null)))
                }
            }
        }
    }
}
