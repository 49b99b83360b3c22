/// How this node serves the ads API: alone, from its data directory, or as a node of a cluster,
/// where one node at a time serves it (``ClusteredAds``).
package enum AdsServing: Sendable {
    case standalone(AdsService)
    case cluster(ClusteredAds)

    /// The service this node runs now: always a standalone node's; a cluster node's while it
    /// holds the ads lease.
    var local: AdsService? {
        switch self {
        case .standalone(let service): service
        case .cluster(let cluster): cluster.local
        }
    }

    /// Why the ads API cannot be served now, or `nil` when it can.
    package func unavailability() async -> String? {
        switch self {
        case .standalone(let service): await service.unavailability()
        case .cluster(let cluster): await cluster.unavailability()
        }
    }

    /// Adds what was counted in memory to the store, and closes it.
    package func close() async {
        switch self {
        case .standalone(let service): await service.close()
        case .cluster(let cluster): await cluster.close()
        }
    }
}
