import ServiceLifecycle

/// Closes the namespaces that have been idle for ``idleTime`` (see
/// ``DatabaseService/closeIdleNamespaces(idleFor:)``), checking a few times per idle period.
struct IdleNamespaceCloser: Service {
    let database: DatabaseService
    let idleTime: Duration

    func run() async throws {
        let interval = max(idleTime / 4, .milliseconds(100))
        // A shutdown interrupts the wait at once; the database closes what is left.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await database.closeIdleNamespaces(idleFor: idleTime)
            }
        }
    }
}
