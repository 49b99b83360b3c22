import AsyncHTTPClient
import Foundation
import HearthApp
import HearthAuth
import HearthDatabaseServer
import HearthServer
import HearthStorage
import HearthStorageServer
import Logging

/// A whole Hearth (Realtime Database, Authentication and Storage) running inside the test
/// process, for an app's own tests: on a free port of `127.0.0.1`, with a temporary data
/// directory, the rules and users a test gives it, and ``app(name:)`` to get a `FirebaseApp`
/// already pointed at it.
///
/// ```swift
/// let hearth = try await TestHearth.start(users: [.init(email: "ada@example.com", password: "secret-1")])
/// let app = hearth.app()
/// _ = try await Auth.auth(app: app).signIn(withEmail: "ada@example.com", password: "secret-1")
/// try await Database.database(app: app).reference().child("greeting").setValue("hello")
/// await hearth.stop()
/// ```
///
/// It runs in development mode, as the Firebase emulators do: without rules everything is open.
/// ``restart()`` serves again on the same port and data; ``suspend()`` and ``resume()`` take it
/// away and bring it back, for tests of what clients do offline; ``stop()`` ends it and deletes
/// its data.
public final class TestHearth: @unchecked Sendable {
    /// The address the server listens on and apps are pointed at.
    public static let host = "127.0.0.1"
    /// The API key of the apps ``app(name:)`` makes (development mode accepts any key).
    public static let apiKey = "hearth-test-api-key"

    /// The Firebase project id the server serves.
    public let projectID: String
    /// The port every product is served on; the same after ``restart()`` and ``resume()``.
    public let port: Int
    /// The temporary directory holding the server's data, deleted by ``stop()``.
    public let dataDirectory: String
    /// The seeded users, as given to ``start(projectID:databaseRules:storageRules:users:)``, each
    /// with the ``User/uid`` the server gave it.
    public let users: [User]
    /// The namespace of the project's default database, `<project>-default-rtdb`.
    public let namespace: String
    private let configuration: HearthConfiguration
    private let lock = NSLock()
    private var state: State

    /// A user to create before the test runs, signed in to with its email and password.
    public struct User: Sendable, Hashable {
        /// The user's email address.
        public var email: String
        /// The user's password: six characters or more, as Firebase requires.
        public var password: String
        /// The user's display name, if any.
        public var displayName: String?
        /// The user's id; when `nil` the server picks one, and ``TestHearth/users`` says which.
        public var uid: String?

        /// A user with `email` and `password`, and optionally a display name and a chosen uid.
        public init(email: String, password: String, displayName: String? = nil, uid: String? = nil) {
            self.email = email
            self.password = password
            self.displayName = displayName
            self.uid = uid
        }
    }

    private struct State {
        var serving: Task<Void, any Error>?
        var stopped = false
        var apps: [FirebaseApp] = []
    }

    private init(
        configuration: HearthConfiguration, serving: Task<Void, any Error>, users: [User]
    ) {
        self.configuration = configuration
        self.projectID = configuration.projectID
        self.port = configuration.port
        self.dataDirectory = configuration.dataDirectory
        self.namespace = configuration.defaultNamespace
        self.users = users
        self.state = State(serving: serving)
    }

    /// Starts a Hearth and returns once it accepts connections and `users` exist.
    ///
    /// - Parameters:
    ///   - projectID: The project id apps name; its default database is `<projectID>-default-rtdb`
    ///     and its bucket `<projectID>.appspot.com`.
    ///   - databaseRules: Realtime Database rules, the text of a `database.rules.json`
    ///     (`{"rules": {…}}`); `nil` leaves the database open.
    ///   - storageRules: Storage rules in the rules language (`rules_version = '2'; service
    ///     firebase.storage { … }`); `nil` leaves Storage open.
    ///   - users: Email and password accounts to create.
    /// - Throws: ``TestHearthError`` when the data directory cannot be written, the rules are
    ///   invalid, or a user cannot be created.
    public static func start(
        projectID: String = "demo-test", databaseRules: String? = nil, storageRules: String? = nil, users: [User] = []
    ) async throws(TestHearthError) -> TestHearth {
        try await start(
            projectID: projectID, databaseRules: databaseRules, storageRules: storageRules, users: users, production: false)
    }

    /// ``start(projectID:databaseRules:storageRules:users:)``, or in production mode (signed
    /// tokens only, admin credentials required, and then `users` cannot be seeded), for Hearth's
    /// own tests.
    package static func start(
        projectID: String, databaseRules: String?, storageRules: String?, users: [User], production: Bool
    ) async throws(TestHearthError) -> TestHearth {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-test-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .dataDirectoryUnwritable(path: directory, error)
        }
        var configuration = HearthConfiguration(port: 0, dataDirectory: directory, projectID: projectID)
        configuration.production = production
        do throws(TestHearthError) {
            if let databaseRules {
                configuration.rulesFile = RulesFile(path: try write(databaseRules, as: "database.rules.json", in: directory))
            }
            if let storageRules {
                configuration.storageRulesFile = StorageRulesFile(path: try write(storageRules, as: "storage.rules", in: directory))
            }
            let (serving, port) = try await serve(configuration)
            configuration.port = port
            do throws(TestHearthError) {
                return TestHearth(configuration: configuration, serving: serving, users: try await seed(users, in: configuration))
            } catch {
                serving.cancel()
                _ = try? await serving.value
                throw error
            }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// The database URL of the default namespace, as `FirebaseOptions.databaseURL` takes it.
    public var databaseURL: String { "http://\(Self.host):\(port)?ns=\(namespace)" }

    /// The project's default Storage bucket, as `FirebaseOptions.storageBucket` takes it.
    public var storageBucket: String { "\(projectID).appspot.com" }

    /// Configures a `FirebaseApp` named `name` pointed at this Hearth: its options name the
    /// project, ``apiKey``, ``databaseURL`` and ``storageBucket``, and its `Auth.auth(app:)` and
    /// `Storage.storage(app:)` use this server as their emulator.
    ///
    /// ``stop()`` signs its user out and deletes it. Naming an app that is configured already
    /// stops the program, as `FirebaseApp.configure(name:options:)` does; the default name makes
    /// a new app each time. Pass `FirebaseApp.defaultAppName` for code that uses the default app
    /// (`Auth.auth()`, `Database.database()`).
    public func app(name: String = "hearth-test-\(UUID().uuidString)") -> FirebaseApp {
        let options = FirebaseOptions(googleAppID: "1:1234567890:ios:hearthtest", gcmSenderID: "1234567890")
        options.apiKey = Self.apiKey
        options.projectID = projectID
        options.databaseURL = databaseURL
        options.storageBucket = storageBucket
        FirebaseApp.configure(name: name, options: options)
        // Just configured; only a concurrent delete could remove it.
        let app = FirebaseApp.app(name: name)!
        Auth.auth(app: app).useEmulator(withHost: Self.host, port: port)
        Storage.storage(app: app).useEmulator(withHost: Self.host, port: port)
        lock.withLock { state.apps.append(app) }
        return app
    }

    /// Stops serving and starts again on the same port with the same data, as a server restart:
    /// connected clients are cut off and reconnect.
    public func restart() async throws(TestHearthError) {
        await suspend()
        try await resume()
    }

    /// Stops serving, keeping the port and the data, and returns once the stores are closed:
    /// clients see a server that went away until ``resume()``.
    public func suspend() async {
        let serving = lock.withLock {
            defer { state.serving = nil }
            return state.serving
        }
        serving?.cancel()
        _ = try? await serving?.value
    }

    /// Serves again after ``suspend()``, on the same port with the same data, and returns once
    /// connections are accepted; while serving, it does nothing.
    ///
    /// - Throws: ``TestHearthError/stopped`` after ``stop()``, or
    ///   ``TestHearthError/serverDidNotStart(_:)`` (the port was taken meanwhile, say).
    public func resume() async throws(TestHearthError) {
        let (stopped, serving) = lock.withLock { (state.stopped, state.serving != nil) }
        guard !stopped else { throw .stopped }
        guard !serving else { return }
        let (task, _) = try await Self.serve(configuration)
        lock.withLock { state.serving = task }
    }

    /// Ends this Hearth: signs out and deletes the apps ``app(name:)`` made, stops serving (the
    /// port refuses connections once it returns) and deletes the data directory.
    public func stop() async {
        let apps = lock.withLock {
            state.stopped = true
            defer { state.apps = [] }
            return state.apps
        }
        for app in apps where FirebaseApp.app(name: app.name) === app {
            try? Auth.auth(app: app).signOut()
            await app.delete()
        }
        await suspend()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// Writes `text` to the file `name` in `directory`; its path.
    private static func write(_ text: String, as name: String, in directory: String) throws(TestHearthError) -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw .dataDirectoryUnwritable(path: path, error)
        }
        return path
    }

    /// Runs a server with `configuration` in a task of its own; the task and the port it
    /// listens on, once it accepts connections.
    private static func serve(_ configuration: HearthConfiguration) async throws(TestHearthError) -> (
        Task<Void, any Error>, Int
    ) {
        let server: HearthServer
        do {
            server = try HearthServer(configuration: configuration, logger: Logger(label: "hearth-testing"))
        } catch {
            throw .serverDidNotStart(error)
        }
        let (listening, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            defer { continuation.finish() }
            try await server.run { port in continuation.yield(port) }
        }
        let port = await withTaskCancellationHandler {
            await listening.first { _ in true }
        } onCancel: {
            task.cancel()
        }
        if let port { return (task, port) }
        do {
            try await task.value
        } catch {
            throw .serverDidNotStart(error)
        }
        throw .serverDidNotStart(nil)
    }

    /// Creates `users` through the server's admin endpoint (`POST …/projects/{p}/accounts` as
    /// the development `owner`); the users with the uids they got.
    private static func seed(_ users: [User], in configuration: HearthConfiguration) async throws(TestHearthError) -> [User] {
        let url =
            "http://\(host):\(configuration.port)/identitytoolkit.googleapis.com/v1/projects/\(configuration.projectID)/accounts"
        var seeded: [User] = []
        for user in users {
            var created = user
            created.uid = try await create(user, at: url)
            seeded.append(created)
        }
        return seeded
    }

    /// The body of an account creation, as Identity Toolkit names its fields.
    private struct NewAccount: Encodable {
        var email: String
        var password: String
        var displayName: String?
        var localId: String?
    }

    /// Identity Toolkit's answer: the account's id, or an error message.
    private struct Reply: Decodable {
        struct Failure: Decodable {
            var message: String
        }
        var localId: String?
        var error: Failure?
    }

    /// Creates `user` with a request to `url`; its uid.
    private static func create(_ user: User, at url: String) async throws(TestHearthError) -> String {
        let reply: Reply
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer owner")
            request.headers.add(name: "Content-Type", value: "application/json")
            let account = NewAccount(
                email: user.email, password: user.password, displayName: user.displayName, localId: user.uid)
            request.body = .bytes(try JSONEncoder().encode(account))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            reply = try JSONDecoder().decode(Reply.self, from: Data(body.readableBytesView))
        } catch {
            throw .userNotCreated(email: user.email, reason: "\(error)")
        }
        guard let uid = reply.localId else {
            throw .userNotCreated(email: user.email, reason: reply.error?.message ?? "no uid in the answer")
        }
        return uid
    }
}

/// Why a ``TestHearth`` could not do what a test asked.
public enum TestHearthError: Error, CustomStringConvertible {
    /// The temporary data directory, or a rules file in it, could not be written.
    case dataDirectoryUnwritable(path: String, any Error)
    /// The server did not start: the database or storage rules are invalid (the error says
    /// where), or, on ``TestHearth/resume()``, its port was taken meanwhile.
    case serverDidNotStart((any Error)?)
    /// The server refused to create a seeded user; `reason` is its message (`EMAIL_EXISTS`,
    /// `WEAK_PASSWORD : …`, `DUPLICATE_LOCAL_ID`, …).
    case userNotCreated(email: String, reason: String)
    /// ``TestHearth/resume()`` or ``TestHearth/restart()`` after ``TestHearth/stop()``.
    case stopped

    public var description: String {
        switch self {
        case .dataDirectoryUnwritable(let path, let error): "cannot write \(path): \(error)"
        case .serverDidNotStart(let error?): "Hearth did not start: \(error)"
        case .serverDidNotStart(nil): "Hearth stopped before it accepted connections"
        case .userNotCreated(let email, let reason): "cannot create the user \(email): \(reason)"
        case .stopped: "this Hearth was stopped; start another"
        }
    }
}

/// Runs `body` with a Hearth started as ``TestHearth/start(projectID:databaseRules:storageRules:users:)``
/// starts one, and stops it (deleting its apps and data) when `body` returns or throws.
///
/// ```swift
/// @Test func greets() async throws {
///     try await withTestHearth(users: [.init(email: "ada@example.com", password: "secret-1")]) { hearth in
///         let app = hearth.app()
///         …
///     }
/// }
/// ```
public func withTestHearth<T>(
    projectID: String = "demo-test", databaseRules: String? = nil, storageRules: String? = nil,
    users: [TestHearth.User] = [], isolation: isolated (any Actor)? = #isolation,
    _ body: (TestHearth) async throws -> T
) async throws -> T {
    let hearth = try await TestHearth.start(
        projectID: projectID, databaseRules: databaseRules, storageRules: storageRules, users: users)
    do {
        let result = try await body(hearth)
        await hearth.stop()
        return result
    } catch {
        await hearth.stop()
        throw error
    }
}
