import Foundation
import HearthServer
import Logging

/// A real Hearth server running in this process on a free port, with its own data directory, for
/// client tests that must talk to the server over the network.
///
/// ``stop()`` and ``start()`` restart it on the same port and data directory, so a client sees a
/// server that went away and came back.
public final class LiveServer: @unchecked Sendable {
    /// The port the server listens on; fixed after the first start.
    public private(set) var port: Int
    /// The data directory, removed by ``remove()``.
    public let directory: String
    /// The namespace clients use: the project's default database.
    public let namespace: String
    private var configuration: HearthConfiguration
    private var task: Task<Void, any Error>?
    private let lock = NSLock()

    /// A server for `projectID` with optional rules, not yet started; `production` turns on
    /// production mode (signed tokens only, admin credentials required).
    public init(projectID: String = "demo-sdk", rules: String? = nil, production: Bool = false) throws {
        directory =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("hearth-live-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = HearthConfiguration(port: 0, dataDirectory: directory, projectID: projectID)
        configuration.production = production
        if let rules {
            let file = (directory as NSString).appendingPathComponent("database.rules.json")
            try rules.write(toFile: file, atomically: true, encoding: .utf8)
            configuration.rulesFile = RulesFile(path: file)
        }
        self.configuration = configuration
        self.namespace = configuration.defaultNamespace
        self.port = 0
    }

    /// Starts a server and an waits until it accepts connections.
    public static func started(projectID: String = "demo-sdk", rules: String? = nil) async throws -> LiveServer {
        let server = try LiveServer(projectID: projectID, rules: rules)
        try await server.start()
        return server
    }

    /// The database URL of the default namespace, as `FirebaseOptions.databaseURL` names it.
    public var databaseURL: String { "http://127.0.0.1:\(port)?ns=\(namespace)" }

    /// Starts serving (again) and returns once the port accepts connections.
    public func start() async throws {
        let server = try HearthServer(configuration: configuration, logger: Logger(label: "hearth-live"))
        let (listening, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            do {
                try await server.run { port in continuation.yield(port) }
            } catch {
                continuation.finish()
                throw error
            }
        }
        lock.withLock { self.task = task }
        for await port in listening {
            lock.withLock {
                self.port = port
                configuration.port = port
            }
            return
        }
        try await task.value
        throw LiveServerError.stoppedBeforeListening
    }

    /// Why a server did not start.
    public enum LiveServerError: Error {
        case stoppedBeforeListening
    }

    /// Stops serving and waits until the stores are closed.
    public func stop() async {
        let task = lock.withLock {
            defer { self.task = nil }
            return self.task
        }
        task?.cancel()
        _ = try? await task?.value
    }

    /// Stops the server and deletes its data directory.
    public func remove() async {
        await stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
