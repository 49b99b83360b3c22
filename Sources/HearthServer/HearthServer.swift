import HearthCore
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// One Hearth server: every product on one port, as a Hummingbird application.
///
/// ``run(onListening:)`` restores every stored namespace, serves until the task is cancelled or
/// the process receives SIGINT/SIGTERM, then waits for in-flight commits and closes the stores.
public struct HearthServer: Sendable {
    public let configuration: HearthConfiguration
    public let database: DatabaseService
    private let logger: Logger

    public init(configuration: HearthConfiguration, logger: Logger = Logger(label: "hearth")) {
        self.configuration = configuration
        self.logger = logger
        self.database = DatabaseService(dataDirectory: configuration.dataDirectory, logger: logger)
    }

    /// Serves until shut down. `onListening` receives the bound port once connections are accepted.
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await database.restoreAll()
        let application = makeApplication(onListening: onListening)
        let serviceGroup = ServiceGroup(
            configuration: .init(
                services: [application],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await serviceGroup.run()
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    func makeApplication(onListening: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        let handler = DatabaseRESTHandler(
            database: database,
            defaultNamespace: configuration.defaultNamespace,
            eventStream: EventStream(
                keepAliveInterval: configuration.streamKeepAliveInterval,
                bufferLimit: configuration.streamBufferLimit),
            maximumWriteBytes: configuration.maximumRESTWriteBytes)
        let responder = CallbackResponder<HearthRequestContext> { request, context in
            await handler.respond(to: request, context: context)
        }
        let realtime = RealtimeEndpoint(
            database: database,
            defaultNamespace: configuration.defaultNamespace,
            fallbackHost: "\(configuration.host):\(configuration.port)",
            outboxLimit: configuration.streamBufferLimit,
            messageLimit: configuration.maximumRealtimeMessageBytes,
            silenceLimit: TimeAmount(configuration.realtimeSilenceLimit),
            logger: logger)
        return Application(
            responder: responder,
            server: HTTPServerBuilder { responder in HearthChannel(responder: responder, realtime: realtime) },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Hearth"),
            onServerRunning: { channel in
                await onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger)
    }
}
