import HearthSupport

/// Sections that read, modify and write Storage's metadata, run one at a time: within this
/// process by a queue, across a cluster's nodes by the store's lock
/// (``StorageStore/exclusively(_:_:)``), which each node so takes for one section at a time.
struct StorageSections: Sendable {
    private let queue = MutationQueue()
    let store: any StorageStore

    func run<Result: Sendable>(_ lock: StorageLock, _ body: @Sendable () async throws -> Result) async throws -> Result {
        try await queue.run { [store] in try await store.exclusively(lock, body) }
    }
}
