import PostgresNIO

/// Ownership of something one node of a cluster must serve alone (the ads service), taken and
/// kept as a namespace's is: a lease with an epoch that every claim raises, renewed while held,
/// and an advisory lock that frees it the moment its holder's session ends.
package protocol ClusterLeases: Sendable {
    /// Takes the lease called `name` for this node, unless another node holds it.
    func claim(_ name: String) async throws(ClusterLeaseError) -> any ClusterLease
}

/// A lease this node holds (``ClusterLeases``).
package protocol ClusterLease: Sendable {
    /// Runs `write` inside the transaction open on `connection`, fenced: first checks that this
    /// node still holds the lease at its epoch and keeps any other node from taking it until
    /// the transaction ends, so that what the transaction writes is written by the holder or
    /// not at all; at its end, extends the lease if it runs short, so that a transaction that
    /// ran long does not hand it over as it commits. Throws ``ClusterLeaseError/lost(_:)`` when
    /// the lease is no longer this node's.
    func fenced(on connection: PostgresConnection, _ write: () async throws -> Void) async throws
    /// Calls `observer` once when the lease is lost (taken by another node, or run out
    /// unrenewed); at once if it is lost already.
    func observeLoss(_ observer: @escaping @Sendable () -> Void)
    /// Gives the lease up, so that another node may take it at once.
    func release() async
}

/// Why a lease could not be had or kept.
package enum ClusterLeaseError: Error, CustomStringConvertible {
    /// Another node holds it, and serves clients at `address` (`host:port`).
    case heldElsewhere(address: String)
    /// The lease is no longer this node's.
    case lost(String)
    /// PostgreSQL refused, failed or did not answer.
    case unavailable(String)

    package var description: String {
        switch self {
        case .heldElsewhere(let address): "the lease is held by the node at \(address)"
        case .lost(let reason): reason
        case .unavailable(let reason): "PostgreSQL: \(reason)"
        }
    }
}
