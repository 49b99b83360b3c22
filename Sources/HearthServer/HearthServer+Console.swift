import HearthAuthServer
import HearthConsole
import HearthCore
import HearthEdge
import HearthStorageServer
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The console on a port of its own, one of the server's services. When its port was not asked
/// for explicitly and cannot be bound, the server goes on without it and says why.
struct ConsoleApplication: Service {
    let application: any Service
    /// The production console's administrators, closed with the other stores.
    let administrators: ConsoleAdministrators?
    let required: Bool
    let port: Int
    let logger: Logger

    func run() async throws {
        do {
            try await application.run()
        } catch  where !required {
            logger.warning(
                """
                console not served: port \(port) could not be bound (\(error)). Choose another with --console-port, or \
                --no-console.
                """)
            try? await gracefulShutdown()
        }
    }
}

/// A port as bound: the configured one until the listener reports the one it got (a
/// configured 0 picks a free port).
final class BoundPort: Sendable {
    private let port: Mutex<Int>

    init(_ configured: Int) {
        port = Mutex(configured)
    }

    var value: Int { port.withLock { $0 } }

    func bound(_ port: Int) {
        self.port.withLock { $0 = port }
    }
}

extension HearthServer {
    /// The traffic view's listeners, from every open namespace, and the paths with the most
    /// denials.
    func trafficSource() -> TrafficSource {
        { [database, metrics] in
            let listeners = await database.listenerSummaries().flatMap { namespace, summaries in
                summaries.map { summary -> JSONValue in
                    guard case .object(let members) = summary.json else { return .null }
                    return .object([JSONMember(key: "namespace", value: .string(namespace))] + members)
                }
            }
            let denials = metrics.denials.top(50).map { entry -> JSONValue in
                .object([
                    JSONMember(key: "product", value: .string(entry.product)),
                    JSONMember(key: "path", value: .string(entry.path)),
                    JSONMember(key: "count", value: .number(.int(Int64(entry.count)))),
                ])
            }
            return .object([
                JSONMember(key: "listeners", value: .array(listeners)),
                JSONMember(key: "denials", value: .array(denials)),
            ])
        }
    }

    /// The console on `port`, calling `products` with each administrator's credential: `owner`
    /// in development, a console access token that Authentication signs in production.
    func makeConsole(
        port: Int, auth: AuthService, storage: StorageService, products: PrefixRouter, mainPort: BoundPort,
        onListening: @escaping @Sendable (Int) async -> Void
    ) async throws -> ConsoleApplication {
        let settings = configuration.consoleSettings(port: port)
        var administrators: ConsoleAdministrators?
        if settings.requiresSignIn {
            let store = try await ConsoleAdministrators.open(dataDirectory: configuration.dataDirectory, logger: logger)
            if (try? await store.count()) == 0 {
                logger.notice("the console has no administrator yet: create one with `hearth admin:create EMAIL`")
            }
            administrators = store
        }
        let credentials = AdministratorCredentials { [production = configuration.production] email in
            guard production else { return ("owner", .seconds(365 * 86400)) }
            let now = Int64(Date().timeIntervalSince1970)
            guard let token = await auth.consoleAccessToken(for: email, now: now) else { return nil }
            return (token, .seconds(AuthService.consoleAccessTokenLifetime))
        }
        let changeSource: ChangeSource = { [database] namespace in
            guard let engine = try? await database.namespace(namespace, for: .admin, writes: false) else { return nil }
            let paths = await engine.followChanges()
            let (changes, continuation) = AsyncStream.makeStream(of: [String].self, bufferingPolicy: .bufferingNewest(256))
            let relay = Task {
                for await batch in paths { continuation.yield(batch.map(\.description)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in relay.cancel() }
            // Holding the engine keeps the namespace open while the console follows it.
            return ChangeFollowing(changes: changes) { withExtendedLifetime(engine) { continuation.finish() } }
        }
        let endpoint = ConsoleEndpoint(
            settings: settings, administrators: administrators, credentials: credentials, changeSource: changeSource,
            databaseRules: databaseRulesAccess(), storageRules: storageRulesAccess(storage: storage),
            emailTemplates: Self.emailTemplateAccess(auth: auth), feed: feed, traffic: trafficSource(),
            mainPort: { mainPort.value },
            products: products.respond(to:context:))
        let application = Application(
            responder: endpoint.responder,
            server: HTTPServerBuilder { [configuration, guards] responder in
                HearthChannel(
                    responder: responder, webSocket: NoWebSocketService(), idleTimeout: configuration.httpIdleTimeout,
                    guards: guards)
            },
            configuration: .init(address: .hostname(configuration.host, port: port), serverName: "Hearth"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
        return ConsoleApplication(
            application: application, administrators: administrators, required: configuration.consolePortRequired, port: port,
            logger: logger)
    }
}
