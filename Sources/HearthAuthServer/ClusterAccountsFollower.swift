import ServiceLifecycle

/// With accounts a cluster shares: reads what the other nodes changed every second, so that a
/// database connection whose user another node disabled or deleted is dropped within a second,
/// rather than at this node's next Authentication request.
package struct ClusterAccountsFollower: Service {
    let auth: AuthService

    package init(auth: AuthService) {
        self.auth = auth
    }

    package func run() async throws {
        guard auth.directory.store.isShared else { return }
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(1))
                try? await auth.directory.catchUp()
            }
        }
    }
}
