import HearthPostgres
import HearthSupport
import Logging
import Synchronization

/// The ads service on a node of a cluster. One node serves it at a time: the one holding the
/// ads lease (``ClusterLeases``), taken by the first node asked for ads while no other holds it.
/// Goals, pacing and frequency caps are decided from what that node holds in memory
/// (``DeliveryLedger``), and only the node holding the lease counts events, under its fence: what
/// is counted never passes a goal or a cap across the cluster. The other nodes pass `/ads/v1/`
/// requests on to it (``AdsEndpoint``).
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

    private enum Holder {
        case unknown
        case here(AdsService)
        /// Another node, as a claim learnt at `learnt`.
        case elsewhere(address: String, learnt: ContinuousClock.Instant)
        /// The last claim, at `learnt`, failed (PostgreSQL out of reach): requests fail at once
        /// for a while rather than each waiting for a claim of its own.
        case unreachable(learnt: ContinuousClock.Instant)
    }

    private struct State {
        var holder = Holder.unknown
        /// The closing of the last service dropped: a claim waits for it, so that the lease's
        /// release (and its lock's) never comes after the claim.
        var closing: Task<Void, Never>?
    }

    private let leases: any ClusterLeases
    private let database: ClusterDatabase
    let clock: AdsClock
    private let logger: Logger
    private let state = Mutex(State())
    /// Claims, one at a time.
    private let claims = MutationQueue()
    /// How long a failed claim's answer is reused.
    static let failureReuse: Duration = .seconds(1)
    /// What requests are told while the lease cannot be claimed (the reason is logged).
    static let unclaimable = "The ads service cannot be served now; retry."

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
            leases: leases,
            database: try await ClusterDatabase.open(
                postgres, schema: PostgresAdsStore.schema, idleTransactionTimeout: PostgresAdsStore.idleTransactionTimeout),
            clock: clock, logger: logger)
    }

    /// This node's service, when it holds the lease.
    var local: AdsService? {
        state.withLock { state in
            if case .here(let service) = state.holder { return service }
            return nil
        }
    }

    /// Who answers ads requests now: this node, claiming the lease if no other node holds it,
    /// or the node that holds it. Without `trustingWhatIsKnown`, the lease is claimed unless
    /// this node serves the ads, whatever it learnt of another holder before the call (what a
    /// claim made meanwhile learnt is taken: calls that wait for one share its answer).
    func server(trustingWhatIsKnown: Bool = true) async throws -> Server {
        let asked: ContinuousClock.Instant? = trustingWhatIsKnown ? nil : .now
        if let server = try known(learntAfter: asked) { return server }
        return try await claims.run { [self] in
            if let server = try known(learntAfter: asked) { return server }
            await state.withLock { $0.closing }?.value
            do {
                return .here(try await serve(lease: try await leases.claim(Self.leaseName)))
            } catch ClusterLeaseError.heldElsewhere(let address) {
                state.withLock { $0.holder = .elsewhere(address: address, learnt: .now) }
                return .node(address)
            } catch {
                logger.error("the ads service could not be claimed", metadata: ["error": "\(logSafe: error)"])
                state.withLock { $0.holder = .unreachable(learnt: .now) }
                throw AdsError.unavailable(Self.unclaimable)
            }
        }
    }

    /// The server known without asking PostgreSQL, from what was learnt after `learntAfter`
    /// (any time, when `nil`) and not too long ago; throws the last claim's failure for a while
    /// after it. This node's own service is always known.
    private func known(learntAfter asked: ContinuousClock.Instant?) throws -> Server? {
        try state.withLock { state throws -> Server? in
            let now = ContinuousClock.now
            func fresh(_ learnt: ContinuousClock.Instant, for reuse: Duration) -> Bool {
                now < learnt + reuse && asked.map { learnt >= $0 } != false
            }
            switch state.holder {
            case .here(let service): return .here(service)
            case .elsewhere(let address, let learnt) where fresh(learnt, for: Self.holderReuse): return .node(address)
            case .unreachable(let learnt) where fresh(learnt, for: Self.failureReuse):
                throw AdsError.unavailable(Self.unclaimable)
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
        state.withLock { $0.holder = .here(service) }
        lease.observeLoss { [weak self] in self?.drop(service) }
        logger.info("serving the ads service for the cluster")
        return service
    }

    /// Stops serving with `service` (its lease lost, or a write's outcome unknown), unless it
    /// was dropped already.
    private func drop(_ service: AdsService) {
        let isCurrent = state.withLock { state in
            guard case .here(let current) = state.holder, current === service else { return false }
            state.holder = .unknown
            state.closing = Task { await service.close() }
            return true
        }
        if isCurrent { logger.warning("stopped serving the ads service: its lease was lost or a write failed") }
    }

    /// Forgets that the node at `address` holds the lease (it did not answer), so that the next
    /// request asks PostgreSQL again.
    func holderUnreachable(_ address: String) {
        state.withLock { state in
            if case .elsewhere(let known, _) = state.holder, known == address { state.holder = .unknown }
        }
    }

    package func unavailability() async -> String? {
        if let service = local { return await service.unavailability() }
        return await database.unavailability()
    }

    /// Closes the service this node serves, giving the lease up, and the database.
    package func close() async {
        // In turn with the claims, so that none serves after this.
        let (service, closing) =
            (try? await claims.run { [self] () -> (AdsService?, Task<Void, Never>?) in
                state.withLock { state in
                    defer { state.holder = .unknown }
                    if case .here(let service) = state.holder { return (service, state.closing) }
                    return (nil, state.closing)
                }
            }) ?? (nil, nil)
        await closing?.value
        await service?.close()
        await database.close()
    }
}
