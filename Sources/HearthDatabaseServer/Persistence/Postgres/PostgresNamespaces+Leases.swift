import HearthPostgres
import PostgresNIO

/// Leases of what other products serve from one node at a time, taken and kept exactly as a
/// namespace's ownership: a row of `hearth_namespaces` under a name no namespace can have
/// (``NamespaceFiles/isValidName(_:)`` refuses `:`), claimed, renewed and released by a
/// ``PostgresNamespaceStore`` that is never committed to, so never created.
extension PostgresNamespaces: ClusterLeases {
    package func claim(_ name: String) async throws(ClusterLeaseError) -> any ClusterLease {
        precondition(!NamespaceFiles.isValidName(name), "a lease's name must not be a namespace's")
        do {
            return NamespaceLease(store: try await PostgresNamespaceStore.claim(name, in: self, logger: logger))
        } catch PersistenceError.ownedElsewhere(_, let address) {
            throw .heldElsewhere(address: address)
        } catch {
            throw .unavailable("\(error)")
        }
    }
}

/// A lease held as a namespace's ownership (``PostgresNamespaces/claim(_:)``).
private struct NamespaceLease: ClusterLease {
    let store: PostgresNamespaceStore

    func fenced(on connection: PostgresConnection, _ write: () async throws -> Void) async throws {
        let namespaces = store.namespaces
        try await store.whileWriting {
            // Locked as a commit locks it (``PostgresSchema``): the holder's writes run one at
            // a time anyway, and a claim waits for the transaction to end.
            let owned = try await connection.query(
                """
                SELECT 1 FROM hearth_namespaces WHERE ns = \(store.name) AND owner = \(namespaces.nodeID) AND epoch = \(store.epoch)
                FOR NO KEY UPDATE
                """,
                logger: ClusterDatabase.quietLogger
            ).collect()
            guard !owned.isEmpty else {
                throw ClusterLeaseError.lost("the lease \(store.name) is no longer this node's at epoch \(store.epoch)")
            }
            try await write()
            // As a commit: a transaction that ran long must not hand the lease over as it ends.
            let sent = ContinuousClock.now
            try await connection.query(
                """
                UPDATE hearth_namespaces SET lease_until = clock_timestamp() + make_interval(secs => \(namespaces.leaseSeconds))
                WHERE ns = \(store.name) AND lease_until < clock_timestamp() + make_interval(secs => \(namespaces.leaseSeconds * 2 / 3))
                """,
                logger: ClusterDatabase.quietLogger)
            // The lease runs at least two thirds of its length after `sent`.
            return sent - namespaces.lease / 3
        }
    }

    func observeLoss(_ observer: @escaping @Sendable () -> Void) {
        store.observeLoss(observer)
    }

    func release() async {
        await store.close()
    }
}
