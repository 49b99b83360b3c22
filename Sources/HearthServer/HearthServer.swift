import HearthAdsServer
import HearthAuthServer
import HearthBackup
import HearthConsole
import HearthCore
import HearthDatabaseServer
import HearthEdge
import HearthPostgres
import HearthStorageRules
import HearthStorageServer
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One Hearth server: every product on one port, as a Hummingbird application.
///
/// ``run(onListening:)`` restores every stored namespace, serves until the task is cancelled or
/// the process receives SIGINT/SIGTERM, then waits for in-flight commits and closes the stores.
public struct HearthServer: Sendable {
    public let configuration: HearthConfiguration
    public let database: DatabaseService
    /// The leases of what one node of a cluster serves alone (the ads), kept as namespaces'
    /// ownerships are; `nil` without PostgreSQL.
    let clusterLeases: (any ClusterLeases)?
    let logger: Logger
    /// The connection limits of every port this server serves, counted together.
    let guards: ConnectionGuards
    /// Where the traffic figures are kept, exported at `/metrics`.
    let registry = PrometheusCollectorRegistry()
    /// The traffic figures, kept in ``registry``.
    let metrics: TrafficMetrics
    /// Every request, while the console's requests view follows it.
    let feed = RequestFeed()

    /// Prepares a server; a rules file that cannot be read or is invalid is refused here.
    public init(configuration: HearthConfiguration, logger: Logger = Logger(label: "hearth")) throws(RulesFile.Failure) {
        self.configuration = configuration
        self.logger = logger
        self.guards = ConnectionGuards(limits: configuration.connectionLimits)
        self.metrics = TrafficMetrics(factory: PrometheusMetricsFactory(registry: registry))
        let policy = RulesPolicy(
            fileRules: try configuration.rulesFile?.load(),
            fallback: configuration.production ? .signedInOnly : .open,
            explainsDenials: !configuration.production)
        if let postgres = configuration.postgres {
            let namespaces = PostgresNamespaces(
                postgres: postgres, nodeID: configuration.nodeID ?? UUID().uuidString.lowercased(),
                address: configuration.clusterAddress,
                keptWrites: configuration.namespaceStore.keptWrites, keptBytes: configuration.namespaceStore.keptBytes, logger: logger)
            self.database = DatabaseService(
                postgres: namespaces, relays: configuration.relays, rulesPolicy: policy,
                servesOnlyExistingNamespaces: configuration.production, metrics: metrics,
                logger: logger)
            self.clusterLeases = namespaces
        } else {
            self.clusterLeases = nil
            self.database = DatabaseService(
                dataDirectory: configuration.dataDirectory, rulesPolicy: policy,
                servesOnlyExistingNamespaces: configuration.production, storeOptions: configuration.namespaceStore, metrics: metrics,
                logger: logger)
        }
    }

    /// Serves until shut down. `onListening` receives the bound port once connections are accepted.
    ///
    /// The default namespace starts loading at once, beside the server (in production, where only
    /// namespaces that exist are served, it is created if it does not exist, as Firebase creates
    /// a project's default database); the others open on first use.
    ///
    /// With a console port configured, the console is served there; `onConsoleListening` receives
    /// its bound port.
    public func run(
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onConsoleListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        try await database.prepare()
        if configuration.production { _ = try await database.createNamespace(configuration.defaultNamespace) }
        // The stores that exist record (or stop recording) their changes before they are opened,
        // so that what opening writes (a signing key's rotation) is recorded too; stores created
        // by opening begin recording below.
        try await prepareStoreChanges()
        await database.preload([configuration.defaultNamespace])
        let auth = try await openAuth()
        let storage: StorageService
        do {
            storage = try await openStorage()
        } catch {
            await closeStores(auth)
            throw error
        }
        let ads: AdsServing
        do {
            ads = try await openAds()
        } catch {
            await closeStores(auth, storage)
            throw error
        }
        announceRules()
        let cluster: RealtimeSessions.ClusterNode?
        do {
            cluster =
                if configuration.postgres != nil {
                    RealtimeSessions.ClusterNode(address: configuration.clusterAddress, secret: try await database.relaySecret())
                } else {
                    nil
                }
        } catch {
            await closeStores(auth, storage, ads)
            throw error
        }
        let (products, realtime) = makeProducts(auth: auth, storage: storage, ads: ads, cluster: cluster)
        let mainPort = BoundPort(configuration.port)
        let listening = ListeningPorts(count: configuration.tls != nil && configuration.httpRedirectPort != nil ? 2 : 1)
        var services: [any Service] = [
            makeApplication(
                products: products, realtime: realtime,
                onListening: { port in
                    mainPort.bound(port)
                    listening.listening()
                    await onListening(port)
                }),
            IdleNamespaceCloser(database: database, idleTime: configuration.namespaceIdleTimeout),
        ]
        services.append(AdsCountFlusher(ads: ads))
        var administrators: ConsoleAdministrators?
        if let consolePort = configuration.consolePort {
            let console: ConsoleApplication
            do {
                console = try await makeConsole(
                    port: consolePort, auth: auth, storage: storage, products: products, mainPort: mainPort, onListening: onConsoleListening
                )
            } catch {
                await closeStores(auth, storage, ads)
                throw error
            }
            administrators = console.administrators
            services.append(console)
        }
        if let storagePort = configuration.storagePort {
            services.append(makeStorageApplication(auth: auth, storage: storage, port: storagePort))
        }
        if let file = configuration.storageRulesFile {
            services.append(file.watcher(rules: storage.rules, logger: logger))
        }
        if let days = configuration.anonymousAccountLifetimeDays {
            services.append(AnonymousAccountSweeper(auth: auth, lifetimeDays: days))
        }
        if configuration.postgres != nil {
            services.append(ClusterAccountsFollower(auth: auth))
        }
        if let file = configuration.rulesFile {
            services.append(file.watcher(database: database, logger: logger))
        }
        if let tls = configuration.tls {
            services.append(tls.keeper(untilServing: listening.all))
            if let port = configuration.httpRedirectPort {
                services.append(
                    makeRedirectApplication(port: port, challenges: tls.certificates.challenges, onListening: listening.listening))
            }
        }
        if let schedule = configuration.backupSchedule {
            services.append(
                ScheduledBackups(
                    schedule: schedule, dataDirectory: configuration.dataDirectory,
                    rulesFiles: BackupRulesFiles.named(
                        database: configuration.rulesFile?.path, storage: configuration.storageRulesFile?.path),
                    metrics: metrics, logger: logger))
        }
        do {
            // Every store again: those opening created, and the tables opening added to stores
            // prepared before (a new version's), whose changes are recorded from now on too.
            try await prepareStoreChanges()
        } catch {
            await closeStores(auth, storage, ads, administrators)
            throw error
        }
        if let archive = configuration.namespaceStore.logArchiveDirectory {
            // First, so that it ends last (a group ends its services in reverse order).
            services.insert(
                StoreChangeArchiver(
                    dataDirectory: configuration.dataDirectory, archiveDirectory: archive,
                    reporting: .init(
                        lag: { [metrics] in metrics.recordLogArchiveLag($0) },
                        failed: { [metrics] in metrics.logArchiveFailures.increment() }),
                    logger: logger), at: 0)
        }
        let serviceGroup = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await serviceGroup.run()
        } catch {
            await closeStores(auth, storage, ads, administrators)
            throw error
        }
        await closeStores(auth, storage, ads, administrators)
    }

    /// Makes the SQLite stores record their changes for the log archive, or stop recording
    /// them.
    private func prepareStoreChanges() async throws {
        try await StoreChangeArchiver.prepare(
            dataDirectory: configuration.dataDirectory, archiving: configuration.namespaceStore.logArchiveDirectory != nil,
            logger: logger)
    }

    /// Finishes pending commits and closes every store. It runs in a task of its own: when
    /// serving ended because the serving task was cancelled, the stores' closing (which runs on
    /// a thread pool that refuses work for cancelled tasks) must still happen.
    private func closeStores(
        _ auth: AuthService, _ storage: StorageService? = nil, _ ads: AdsServing? = nil,
        _ administrators: ConsoleAdministrators? = nil
    ) async {
        await Task { [database] in
            // The ads first: on a cluster, their lease is kept by the database's PostgreSQL.
            await ads?.close()
            await database.close()
            await auth.close()
            await storage?.close()
            await administrators?.close()
        }.value
    }

    /// Opens Storage under the data directory with the rules of its file, or the mode's
    /// default rules; a rules file that does not compile stops the server from starting.
    func openStorage() async throws -> StorageService {
        let ruleset: StorageRuleset
        if let file = configuration.storageRulesFile {
            ruleset = try file.load()
            logger.notice("enforcing storage rules from \(file.path); edits are reloaded")
            for warning in ruleset.warnings { logger.warning("\(file.path): \(warning)") }
        } else if configuration.production {
            ruleset = try StorageRuleset(source: StorageRulesState.signedInSource)
            logger.notice("production mode without a storage rules file: Storage requires sign-in (request.auth != null)")
        } else {
            ruleset = try StorageRuleset(source: StorageRulesState.openSource)
            logger.warning(
                """
                NO STORAGE RULES: every client may read and write every file (development mode, as the Firebase \
                emulator). Name a rules file in firebase.json or with --storage-rules, or use --production.
                """)
        }
        let rules = StorageRulesState(
            initial: ruleset, explainsDenials: !configuration.production, denials: metrics.denials, logger: logger)
        if configuration.postgres != nil,
            FileManager.default.fileExists(atPath: configuration.dataDirectory + "/storage/storage.sqlite")
        {
            logger.warning(
                "the data directory's Storage (storage/) is not used with --postgres: objects are kept in PostgreSQL, or in --blob-dir"
            )
        }
        let location: StorageLocation =
            if let postgres = configuration.postgres {
                .postgres(postgres, blobDirectory: configuration.blobDirectory)
            } else {
                .dataDirectory(configuration.dataDirectory)
            }
        return try await StorageService.open(
            location: location, settings: configuration.storageSettings, rules: rules, logger: logger)
    }

    /// Opens the ads server's catalog and counts: under the data directory, or in PostgreSQL
    /// with `--postgres`, where one node of the cluster at a time serves them.
    func openAds() async throws -> AdsServing {
        let clock = AdsClock(isSettable: !configuration.production)
        if let postgres = configuration.postgres, let clusterLeases {
            return .cluster(try await ClusteredAds.open(postgres: postgres, leases: clusterLeases, clock: clock, logger: logger))
        }
        return .standalone(try await AdsService.open(dataDirectory: configuration.dataDirectory, clock: clock, logger: logger))
    }

    /// Opens Authentication's accounts and keys: in PostgreSQL with `--postgres`, else under the
    /// data directory.
    func openAuth() async throws -> AuthService {
        if configuration.postgres != nil,
            FileManager.default.fileExists(atPath: configuration.dataDirectory + "/auth/auth.sqlite")
        {
            logger.warning(
                "the data directory's accounts (auth/auth.sqlite) are not used with --postgres: accounts, keys and secrets are read from PostgreSQL"
            )
        }
        return try await AuthService.open(
            configuration.postgres.map { .postgres($0) } ?? .dataDirectory(configuration.dataDirectory),
            settings: configuration.authSettings,
            now: Int64(Date().timeIntervalSince1970), logger: logger)
    }

    /// Says which rules are in force; loudly when everything is open.
    private func announceRules() {
        if let file = configuration.rulesFile {
            logger.notice("enforcing database rules from \(file.path); edits are reloaded")
        } else if configuration.production {
            logger.notice("production mode without a rules file: namespaces without rules require sign-in (auth != null)")
        } else {
            logger.warning(
                """
                NO DATABASE RULES: every client may read and write everything (development mode, as the Firebase \
                emulator). Name a rules file in firebase.json or with --rules, or use --production.
                """)
        }
    }

    /// Every product mounted by prefix on one router, and the realtime database's WebSocket
    /// service, which the main port's channel hands upgrades to.
    func makeProducts(
        auth: AuthService, storage: StorageService, ads: AdsServing, cluster: RealtimeSessions.ClusterNode? = nil
    ) -> (PrefixRouter, RealtimeEndpoint) {
        let credentials = TracedCredentials(auth.credentials)
        let authEndpoint = AuthEndpoint(service: auth)
        let storageEndpoint = makeStorageEndpoint(credentials: credentials, storage: storage, port: configuration.port)
        let metricsEndpoint = MetricsEndpoint(
            registry: registry, credentials: credentials, requiresAdmin: configuration.production)
        let handler = DatabaseRESTHandler(
            database: database,
            defaultNamespace: configuration.defaultNamespace,
            eventStream: EventStream(
                keepAliveInterval: configuration.streamKeepAliveInterval,
                bufferLimit: configuration.streamBufferLimit),
            maximumWriteBytes: configuration.maximumRESTWriteBytes,
            credentials: credentials)
        let realtime = RealtimeEndpoint(
            database: database,
            defaultNamespace: configuration.defaultNamespace,
            fallbackHost: "\(configuration.host):\(configuration.port)",
            outboxLimit: configuration.streamBufferLimit,
            messageLimit: configuration.maximumRealtimeMessageBytes,
            silenceLimit: TimeAmount(configuration.realtimeSilenceLimit),
            logger: logger,
            credentials: credentials, feed: feed, metrics: metrics, cluster: cluster)
        let longPoll = LongPollEndpoint(realtime: realtime, timeout: configuration.longPollTimeout)
        var router = PrefixRouter(product: "database", fallback: handler.respond(to:context:), feed: feed, metrics: metrics)
        router.mount(
            product: "database", claims: { $0 == LongPollEndpoint.path },
            respond: { request, _ in await longPoll.respond(to: request) })
        if let cluster {
            let relays = RelayEndpoint(database: database, secret: cluster.secret, realtime: realtime)
            router.mount(
                product: "database", claims: RelayEndpoint.claims, respond: { request, _ in await relays.respond(to: request) })
        }
        router.mount(product: "storage", claims: StorageRoute.claims, respond: storageEndpoint.respond(to:context:))
        router.mount(product: "auth", claims: AuthRoute.claims, respond: authEndpoint.respond(to:context:))
        let adsEndpoint = AdsEndpoint(serving: ads, credentials: credentials, publicURL: configuration.publicURL)
        router.mount(product: "ads", claims: AdsEndpoint.claims, respond: adsEndpoint.respond(to:context:))
        router.mount(
            product: "metrics", claims: { $0 == MetricsEndpoint.path },
            respond: { request, _ in await metricsEndpoint.respond(to: request) })
        var checks: [HealthEndpoint.Check] = [
            .init(product: "database") { [database] in await database.unavailability() },
            .init(product: "auth") { await auth.unavailability() },
            .init(product: "storage") { await storage.unavailability() },
        ]
        checks.append(.init(product: "ads") { await ads.unavailability() })
        let health = HealthEndpoint(checks: checks, logger: logger)
        router.mount(product: "health", claims: HealthEndpoint.claims, respond: { request, _ in await health.respond(to: request) })
        return (router, realtime)
    }

    func makeApplication(
        products: PrefixRouter, realtime: RealtimeEndpoint, onListening: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        Application(
            responder: products.responder,
            server: HTTPServerBuilder { [configuration, guards, metrics] responder in
                let channel = HearthChannel(
                    responder: responder, webSocket: realtime, idleTimeout: configuration.httpIdleTimeout, guards: guards,
                    metrics: metrics)
                guard let tls = configuration.tls else { return channel }
                return TLSChannel(channel, certificates: tls.certificates)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Hearth"),
            onServerRunning: { channel in
                await onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger)
    }

    private func makeStorageEndpoint(
        credentials: any CredentialVerifying, storage: StorageService, port: Int
    ) -> StorageEndpoint {
        StorageEndpoint(
            service: storage, credentials: StorageCredentials(verifier: credentials),
            fallbackHost: "\(configuration.host):\(port)")
    }

    /// Storage alone on a port of its own, as the emulator's 9199.
    func makeStorageApplication(auth: AuthService, storage: StorageService, port: Int) -> some ApplicationProtocol {
        let endpoint = makeStorageEndpoint(credentials: TracedCredentials(auth.credentials), storage: storage, port: port)
        return Application(
            responder: PrefixRouter(
                product: "storage", fallback: endpoint.respond(to:context:), feed: feed, metrics: metrics
            ).responder,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: guards.http1Handlers(),
                    idleTimeout: TimeAmount(configuration.httpIdleTimeout))),
            configuration: .init(address: .hostname(configuration.host, port: port), serverName: "Hearth"),
            onServerRunning: { [logger, host = configuration.host] channel in
                logger.notice("Storage listening on http://\(host):\(channel.localAddress?.port ?? port)")
            },
            logger: logger)
    }
}
