import HearthPostgres
import HearthSupport
import Logging
import Synchronization

/// The ads service on a node of a cluster. One node serves it at a time: the one holding the
/// ads lease (``ClusterLeases``), taken by the first node asked for ads while no other holds it.
/// Goals, pacing and frequency caps are decided from what that node holds in memory
/// (``DeliveryLedger``), so they hold across the cluster only because one node decides them;
/// the other nodes pass `/ads/v1/` requests on to it (``AdsEndpoint``).
///
/// A node that takes the lease over reads the catalog and what was delivered from PostgreSQL,
/// after every transaction of the previous holder ended (``PostgresAdsStore``). A node that
/// loses the lease, or whose write's outcome is unknown, drops its service; the next request
/// claims the lease again.
package final class ClusteredAds: Sendable {
    /// The lease's name: not a namespace's.
    static let leaseName = "hearth:ads"
    /// How long the answer that another node holds the lease is reused before asking again.
    static let holderReuse: Duration = .milliseconds(500)

    /// Who answers an ads request.
    enum Server {
        /// This node, with its service.
        case here(AdsService)
        /// The node serving clients at this address (`host:port`).
        case node(String)
    }

    private enum State {
        case idle
        case serving(AdsService)
        case heldElsewhere(address: String, until: ContinuousClock.Instant)
    }

    private let leases: any ClusterLeases
    private let database: ClusterDatabase
    let clock: AdsClock
    private let logger: Logger
    private let state = Mutex(State.idle)
    /// Claims, one at a time.
    private let claims = MutationQueue()
    /// The closing of the last service dropped: a claim waits for it, so that the lease's
    /// release (and its lock's) never comes after the claim.
    private let closing = Mutex<Task<Void, Never>?>(nil)

    private init(leases: any ClusterLeases, database: ClusterDatabase, clock: AdsClock, logger: Logger) {
        self.leases = leases
        self.database = database
        self.clock = clock
        self.logger = logger
    }

    /// The ads service of the cluster whose PostgreSQL is at `postgres`, its tables created if
    /// missing; the lease is taken from `leases` when first needed.
    package static func open(postgres: PostgresAddress, leases: any ClusterLeases, clock: AdsClock, logger: Logger)
        async throws -> ClusteredAds
    {
        ClusteredAds(
            leases: leases, database: try await ClusterDatabase.open(postgres, schema: PostgresAdsStore.schema), clock: clock,
            logger: logger)
    }

    /// This node's service, when it holds the lease.
    var local: AdsService? {
        state.withLock { state in
            if case .serving(let service) = state { return service }
            return nil
        }
    }

    /// Who answers ads requests now: this node, claiming the lease if no other node holds it,
    /// or the node that holds it.
    func server() async throws -> Server {
        if let server = known() { return server }
        return try await claims.run { [self] in
            if let server = known() { return server }
            await closing.withLock { $0 }?.value
            do {
                return .here(try await serve(lease: try await leases.claim(Self.leaseName)))
            } catch ClusterLeaseError.heldElsewhere(let address) {
                state.withLock { $0 = .heldElsewhere(address: address, until: .now + Self.holderReuse) }
                return .node(address)
            }
        }
    }

    /// The server known without asking PostgreSQL.
    private func known() -> Server? {
        state.withLock { state in
            switch state {
            case .serving(let service): return .here(service)
            case .heldElsewhere(let address, let until) where until > .now: return .node(address)
            default: return nil
            }
        }
    }

    /// Opens the service under `lease`, just taken.
    private func serve(lease: any ClusterLease) async throws -> AdsService {
        // Set once the service exists: a loss before that closes the store with the failure.
        let opened = Mutex<AdsService?>(nil)
        let store = PostgresAdsStore(database: database, lease: lease, clock: clock) { [weak self] in
            if let service = opened.withLock({ $0 }) { self?.drop(service) }
        }
        let service = try await AdsService.open(store: store, clock: clock, logger: logger)
        opened.withLock { $0 = service }
        state.withLock { $0 = .serving(service) }
        lease.observeLoss { [weak self] in self?.drop(service) }
        logger.info("serving the ads service for the cluster")
        return service
    }

    /// Stops serving with `service` (its lease lost, or a write's outcome unknown), unless it
    /// was dropped already.
    private func drop(_ service: AdsService) {
        let isCurrent = state.withLock { state in
            guard case .serving(let current) = state, current === service else { return false }
            state = .idle
            return true
        }
        guard isCurrent else { return }
        logger.warning("stopped serving the ads service: its lease was lost or a write failed")
        closing.withLock { $0 = Task { await service.close() } }
    }

    /// Forgets that the node at `address` holds the lease (it did not answer), so that the next
    /// request asks PostgreSQL again.
    func holderUnreachable(_ address: String) {
        state.withLock { state in
            if case .heldElsewhere(let known, _) = state, known == address { state = .idle }
        }
    }

    package func unavailability() async -> String? {
        if let service = local { return await service.unavailability() }
        return await database.unavailability()
    }

    /// Closes the service this node serves, giving the lease up, and the database.
    package func close() async {
        await closing.withLock { $0 }?.value
        // In turn with the claims, so that none serves after this.
        let service = try? await claims.run { [self] () -> AdsService? in
            state.withLock { state in
                defer { state = .idle }
                if case .serving(let service) = state { return service }
                return nil
            }
        }
        await service?.close()
        await database.close()
    }
}
