import Foundation

/// A value guarded by a lock, for state shared across threads in the SDK modules, which must
/// build for Apple platforms older than the standard library's `Mutex` (iOS 18, macOS 15).
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
