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
            return NamespaceLease(store: try await PostgresNamespaceStore.claim(name, in: self, logger: logger), nodeID: nodeID)
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
    let nodeID: String

    func fence(on connection: PostgresConnection) async throws {
        // A share lock: the holder's transactions do not wait for each other, while a claim,
        // which updates the row, waits for all of them to end.
        let rows = try await connection.query(
            "SELECT 1 FROM hearth_namespaces WHERE ns = \(store.name) AND owner = \(nodeID) AND epoch = \(store.epoch) FOR SHARE",
            logger: ClusterDatabase.quietLogger
        ).collect()
        guard !rows.isEmpty else {
            throw ClusterLeaseError.lost("the lease \(store.name) is no longer this node's at epoch \(store.epoch)")
        }
    }

    func observeLoss(_ observer: @escaping @Sendable () -> Void) {
        store.observeLoss(observer)
    }

    func release() async {
        await store.close()
    }
}
