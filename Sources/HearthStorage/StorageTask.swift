import Foundation
@_spi(HearthSDK) import HearthApp

/// What a task's snapshot reports, and what observers listen for.
public enum StorageTaskStatus: Int, Sendable {
    case unknown, resume, progress, pause, success, failure
}

/// A task's state when an observer is called.
public final class StorageTaskSnapshot: @unchecked Sendable {
    public let status: StorageTaskStatus
    /// Bytes done of the total.
    public let progress: Progress?
    /// The object's metadata, once an upload succeeded.
    public let metadata: StorageMetadata?
    public let error: (any Error)?
    public let reference: StorageReference

    init(status: StorageTaskStatus, progress: Progress?, metadata: StorageMetadata?, error: (any Error)?, reference: StorageReference) {
        self.status = status
        self.progress = progress
        self.metadata = metadata
        self.error = error
        self.reference = reference
    }
}

/// An upload or download that reports its progress to observers and can be paused, resumed
/// and cancelled.
public class StorageObservableTask: @unchecked Sendable {
    let reference: StorageReference
    private let lock = NSLock()
    /// The app's observers, called only on the callback queue.
    private var observers: [String: (status: StorageTaskStatus, handler: UncheckedSendable<(StorageTaskSnapshot) -> Void>)] = [:]
    private var current: StorageTaskSnapshot
    private var paused = false
    private var cancelled = false
    private var finished = false
    let progress = Progress(totalUnitCount: -1)

    init(reference: StorageReference) {
        self.reference = reference
        current = StorageTaskSnapshot(status: .unknown, progress: nil, metadata: nil, error: nil, reference: reference)
    }

    /// The latest snapshot.
    public var snapshot: StorageTaskSnapshot { lock.withLock { current } }

    /// Calls `handler` on the storage's callback queue at each event of `status`; answers a
    /// handle for ``removeObserver(withHandle:)``.
    @discardableResult
    public func observe(_ status: StorageTaskStatus, handler: @escaping (StorageTaskSnapshot) -> Void) -> String {
        let handle = UUID().uuidString
        let handler = UncheckedSendable(handler)
        let finishedSnapshot: StorageTaskSnapshot? = lock.withLock {
            observers[handle] = (status, handler)
            return finished && current.status == status ? current : nil
        }
        if let finishedSnapshot { reference.storage.callbackQueue.async { handler.value(finishedSnapshot) } }
        return handle
    }

    public func removeObserver(withHandle handle: String) {
        lock.withLock { _ = observers.removeValue(forKey: handle) }
    }

    public func removeAllObservers(for status: StorageTaskStatus) {
        lock.withLock { observers = observers.filter { $0.value.status != status } }
    }

    public func removeAllObservers() {
        lock.withLock { observers = [:] }
    }

    /// Stops the transfer after the current piece; ``resume()`` continues it.
    public func pause() {
        guard
            lock.withLock({ () -> Bool in
                guard !paused, !finished else { return false }
                paused = true
                return true
            })
        else { return }
        report(.pause)
    }

    public func resume() {
        guard
            lock.withLock({ () -> Bool in
                guard paused, !finished else { return false }
                paused = false
                return true
            })
        else { return }
        report(.resume)
    }

    /// Stops the transfer for good; it fails with ``StorageErrorCode/cancelled``.
    public func cancel() {
        lock.withLock { cancelled = true }
    }

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Waits while paused; throws once cancelled.
    func checkpoint() async throws {
        while true {
            let (isPaused, isCancelled) = lock.withLock { (paused, cancelled) }
            if isCancelled { throw StorageError.cancelled }
            if !isPaused { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Runs the transfer `operation`, reporting its start and its outcome to observers.
    func track<Result>(_ operation: () async throws -> Result) async throws -> Result {
        report(.resume)
        do {
            let result = try await operation()
            report(.success)
            return result
        } catch {
            report(.failure, error: error)
            throw error
        }
    }

    /// Records and announces an event.
    func report(_ status: StorageTaskStatus, metadata: StorageMetadata? = nil, error: (any Error)? = nil) {
        let snapshot = StorageTaskSnapshot(status: status, progress: progress, metadata: metadata, error: error, reference: reference)
        let handlers = lock.withLock { () -> [UncheckedSendable<(StorageTaskSnapshot) -> Void>] in
            current = snapshot
            if status == .success || status == .failure { finished = true }
            return observers.values.filter { $0.status == status }.map(\.handler)
        }
        reference.storage.callbackQueue.async {
            for handler in handlers { handler.value(snapshot) }
        }
    }
}
