import HearthCore
import HearthPostgres
import Logging
import PostgresNIO
import Synchronization

/// Namespaces kept in PostgreSQL, shared by every Hearth node that names the same database.
///
/// One node owns a namespace at a time: opening it claims the namespace's row in
/// `hearth_namespaces` (``PostgresSchema``) when no other node holds an unexpired lease on it,
/// raising its epoch; the owner renews the lease while the namespace is open and releases it when
/// it closes. Every commit checks the epoch in its own transaction, so a node that lost the
/// namespace (paused past its lease, cut off) can never commit again. A node asked for a
/// namespace another node owns refuses it with ``PersistenceError/ownedElsewhere(namespace:address:)``,
/// naming where that node serves clients. Opening a namespace claims it, even one that does not
/// exist yet (its row says so), so that a namespace has one owner whether it is read or written:
/// no node serves an empty tree while another writes.
package final class PostgresNamespaces: NamespaceBackend {
    let database: ClusterDatabase
    var client: PostgresClient { database.client }
    /// This node's identity as an owner: unique per process, so that a restarted node claims anew.
    let nodeID: String
    /// Where this node serves clients (`host:port`): where other nodes send the clients of the
    /// namespaces it owns.
    let address: String
    /// How long an owner's claim holds without renewal.
    let lease: Duration
    /// ``lease`` in seconds, as PostgreSQL takes it.
    var leaseSeconds: Double {
        Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
    }
    /// The most recent writes each namespace's log keeps for the history, and the most bytes.
    let keptWrites: Int
    let keptBytes: Int
    /// How long a query may wait for its answer.
    let answerTimeout: Duration = .seconds(10)
    /// How long a commit waits for its answer: a little longer than PostgreSQL lets one
    /// statement run (``ClusterDatabase/statementTimeout``).
    let commitTimeout: Duration = ClusterDatabase.statementTimeout + .seconds(5)
    let logger: Logger
    /// The advisory locks of the namespaces this node owns, which tell other nodes at once when
    /// this one dies.
    let locks: OwnershipLocks
    /// Namespaces known to exist: they are never deleted, so a name once seen stays. A namespace
    /// is created by its first commit, which may come from another node: a name not known is
    /// looked up each time.
    private let known = Mutex<Set<String>>([])
    /// Where the namespaces another node was found to own are served, and until when that
    /// answer is reused rather than asked again: a node passing a namespace's requests on to its
    /// owner claims it no more than twice a second.
    private let owners = Mutex<[String: (address: String, until: ContinuousClock.Instant)]>([:])
    static let ownerReuse: Duration = .milliseconds(500)
    /// The cluster's relay secret, once read (``relaySecret()``).
    private let relaySecretRead = Mutex<String?>(nil)

    /// Namespaces in the PostgreSQL database at `address`, owned by this node as `nodeID`.
    package init(
        postgres: PostgresAddress, nodeID: String, address: String, lease: Duration = .seconds(3), keptWrites: Int = 100_000,
        keptBytes: Int = 64 << 20, logger: Logger
    ) {
        self.database = ClusterDatabase(postgres)
        self.nodeID = nodeID
        self.address = address
        self.lease = lease
        self.keptWrites = keptWrites
        self.keptBytes = keptBytes
        self.logger = logger
        self.locks = OwnershipLocks(address: postgres, logger: logger)
    }

    package func prepare() async throws {
        do {
            try await database.createSchema(PostgresSchema.statements)
        } catch {
            throw PersistenceError.postgres(ClusterDatabase.describe(error))
        }
    }

    func exists(_ name: String) async throws -> Bool {
        if known.withLock({ $0.contains(name) }) { return true }
        let found = try await run("SELECT 1 FROM hearth_namespaces WHERE ns = \(name) AND created") { $0.count > 0 }
        if found { known.withLock { _ = $0.insert(name) } }
        return found
    }

    func names() async throws -> [String] {
        try await run("SELECT ns FROM hearth_namespaces WHERE created ORDER BY ns COLLATE \"C\"") { rows in
            try rows.map { try $0.decode(String.self) }
        }
    }

    /// Whether no namespace holds data or settings (`hearth migrate --to-postgres` writes only
    /// into such a cluster, or one it began writing into).
    func holdsNoData() async throws -> Bool {
        try await run("SELECT NOT EXISTS (SELECT 1 FROM hearth_leaves) AND NOT EXISTS (SELECT 1 FROM hearth_settings)") {
            try $0.first?.decode(Bool.self) == true
        }
    }

    func create(_ name: String) async throws -> Bool {
        let created = try await run(
            """
            INSERT INTO hearth_namespaces AS n (ns, created) VALUES (\(name), true)
            ON CONFLICT (ns) DO UPDATE SET created = true WHERE NOT n.created
            RETURNING 1
            """
        ) { $0.count > 0 }
        known.withLock { _ = $0.insert(name) }
        return created
    }

    func open(_ name: String, listened: ListenedPaths) async throws -> (any NamespaceStorage)? {
        let now = ContinuousClock.now
        if let owner = owners.withLock({ $0[name] }), owner.until > now {
            throw PersistenceError.ownedElsewhere(namespace: name, address: owner.address)
        }
        do {
            let store = try await PostgresNamespaceStore.claim(name, in: self, logger: logger)
            _ = owners.withLock { $0.removeValue(forKey: name) }
            return store
        } catch PersistenceError.ownedElsewhere(_, let address) {
            owners.withLock { owners in
                // Forget the stale answers first, so that the table stays as small as the
                // namespaces in use.
                if owners.count > 1024 { owners = owners.filter { $0.value.until > now } }
                owners[name] = (address, now + Self.ownerReuse)
            }
            throw PersistenceError.ownedElsewhere(namespace: name, address: address)
        }
    }

    func storeFactory(_ name: String, listened: ListenedPaths) -> StoreFactory {
        { [self] in try await PostgresNamespaceStore.claim(name, in: self, logger: logger) }
    }

    /// The secret the nodes of this cluster present to each other on relays' links, made by the
    /// first node that asks and read by every other.
    func relaySecret() async throws -> String {
        if let secret = relaySecretRead.withLock({ $0 }) { return secret }
        var random = SystemRandomNumberGenerator()
        let candidate = Hex.encode((0..<32).map { _ in random.next() as UInt8 })
        // A node that waited on another's insert reads nothing (its statement's snapshot
        // predates that insert): the second try reads it.
        var secret: String?
        for _ in 1...2 where secret == nil {
            secret = try await run(
                """
                WITH made AS (
                  INSERT INTO hearth_cluster_settings (name, value) VALUES ('relay-secret', \(candidate))
                  ON CONFLICT (name) DO NOTHING RETURNING value
                )
                SELECT value FROM made UNION ALL SELECT value FROM hearth_cluster_settings WHERE name = 'relay-secret'
                """
            ) { rows in try rows.first.map { try $0.decode(String.self) } }
        }
        guard let secret else { throw PersistenceError.postgres("the relay secret could not be read") }
        relaySecretRead.withLock { $0 = secret }
        return secret
    }

    func forgetOwner(of name: String) {
        _ = owners.withLock { $0.removeValue(forKey: name) }
    }

    func unavailability() async -> String? {
        await database.unavailability()
    }

    package func close() async {
        await locks.close()
        await database.close()
    }

    /// Runs `query` and hands its rows, read whole, to `body`; PostgreSQL's failures become
    /// ``PersistenceError/postgres(_:)``, its fencing ``PersistenceError/deposed(_:)``. A query
    /// not answered within `timeout` (``answerTimeout`` by default: PostgreSQL out of reach, the
    /// pool waiting for a connection however long) fails; whether it took effect is then
    /// unknown. PostgreSQL cancels a statement itself after ``ClusterDatabase/statementTimeout``, which a
    /// commit's timeout exceeds: a commit that fails so was not applied.
    func run<Result>(
        _ query: PostgresQuery, timeout: Duration? = nil, _ body: ([PostgresRow]) throws -> Result
    ) async throws(PersistenceError) -> Result {
        let limit = timeout ?? answerTimeout
        do {
            let rows = try await database.rows(
                query, within: limit, orThrow: PersistenceError.postgres("no answer within \(limit)"))
            return try body(rows)
        } catch let error as PersistenceError {
            throw error
        } catch  where (error as? PSQLError)?.serverInfo?[.sqlState] == PostgresSchema.fencedState {
            throw .deposed(ClusterDatabase.describe(error))
        } catch {
            throw .postgres(ClusterDatabase.describe(error))
        }
    }
}
