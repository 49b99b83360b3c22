import ServiceLifecycle

/// Closes the namespaces that have been idle for ``idleTime`` (see
/// ``DatabaseService/closeIdleNamespaces(idleFor:)``), checking a few times per idle period.
package struct IdleNamespaceCloser: Service {
    let database: DatabaseService
    let idleTime: Duration

    package init(database: DatabaseService, idleTime: Duration) {
        self.database = database
        self.idleTime = idleTime
    }

    package func run() async throws {
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
