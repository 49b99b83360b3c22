import Foundation
@_spi(HearthSDK) import HearthApp
import HearthConnection
import HearthCore
import Logging

/// The entry point to a Realtime Database, under the Firebase Apple SDK's name and API.
///
/// One instance exists per app and database URL. Settings (`isPersistenceEnabled`,
/// `persistenceCacheSizeBytes`, `callbackQueue`, `useEmulator`) must be made before the first
/// reference is used, as with Firebase.
public final class Database: @unchecked Sendable {
    private static let instancesLock = NSLock()
    nonisolated(unsafe) private static var instances: [String: Database] = [:]
    nonisolated(unsafe) private static var loggingEnabled = false

    /// The app this database belongs to.
    public let app: FirebaseApp?
    private let lock = NSLock()
    private var url: DatabaseURL
    private var startedRepo: Repo?
    private var persistenceEnabled = false
    private var cacheSize: UInt = 10 * 1024 * 1024
    private var queue: DispatchQueue = defaultCallbackQueue(label: "hearth.database.callbacks")

    private init(app: FirebaseApp?, url: DatabaseURL) {
        self.app = app
        self.url = url
    }

    /// The default app's database.
    public static func database() -> Database {
        guard let app = FirebaseApp.app() else {
            preconditionFailure(
                "The default FirebaseApp instance must be configured before the default Database instance can be initialized. One way to ensure this is to call `FirebaseApp.configure()` first."
            )
        }
        return database(app: app)
    }

    /// The default app's database at `url`.
    public static func database(url: String) -> Database {
        guard let app = FirebaseApp.app() else {
            preconditionFailure(
                "The default FirebaseApp instance must be configured before the default Database instance can be initialized.")
        }
        return database(app: app, url: url)
    }

    /// `app`'s database: the one its options' `databaseURL` names, else the project's default.
    public static func database(app: FirebaseApp) -> Database {
        let options = app.options
        let url = options.databaseURL ?? "https://\(options.projectID ?? "")-default-rtdb.firebaseio.com"
        return database(app: app, url: url)
    }

    /// `app`'s database at `url`.
    public static func database(app: FirebaseApp, url: String) -> Database {
        guard let parsed = DatabaseURL(url) else {
            preconditionFailure(
                "Failed to get FirebaseDatabase instance: Specify DatabaseURL within FIRApp or from your databaseForApp:URL: call.")
        }
        _ = releasesDeletedApps
        return instancesLock.withLock {
            let key = "\(app.name)|\(parsed.target.host)|\(parsed.target.namespace)"
            if let existing = instances[key] { return existing }
            let database = Database(app: app, url: parsed)
            instances[key] = database
            return database
        }
    }

    /// Connects to a local server instead (`useEmulator(withHost: "127.0.0.1", port: 9000)`);
    /// must come before first use.
    public func useEmulator(withHost host: String, port: Int) {
        configure("useEmulator") {
            $0.url.target = ConnectionTarget(host: "\(host):\(port)", namespace: $0.url.target.namespace, secure: false)
        }
    }

    /// Whether the cache and pending writes are kept on disk across restarts.
    public var isPersistenceEnabled: Bool {
        get { lock.withLock { persistenceEnabled } }
        set { configure("isPersistenceEnabled") { $0.persistenceEnabled = newValue } }
    }

    /// The most bytes the disk cache keeps (1 MB to 100 MB; 10 MB by default).
    public var persistenceCacheSizeBytes: UInt {
        get { lock.withLock { cacheSize } }
        set {
            precondition(
                newValue >= 1024 * 1024 && newValue <= 100 * 1024 * 1024,
                "Firebase Database currently only supports cache sizes between 1MB and 100MB.")
            configure("persistenceCacheSizeBytes") { $0.cacheSize = newValue }
        }
    }

    /// The queue every event and completion block runs on: the main queue on Apple platforms, a
    /// serial queue of the SDK's own on Linux, where command-line programs run no main loop.
    public var callbackQueue: DispatchQueue {
        get { lock.withLock { queue } }
        set { configure("callbackQueue") { $0.queue = newValue } }
    }

    private func configure(_ setting: String, _ change: (Database) -> Void) {
        lock.withLock {
            precondition(
                startedRepo == nil,
                "Calls to \(setting) must be made before any other usage of FIRDatabase instance.")
            change(self)
        }
    }

    /// The repo, made on first use with the settings made so far.
    var repo: Repo {
        lock.withLock {
            if let startedRepo { return startedRepo }
            var logger = Logger(label: "hearth.database")
            logger.logLevel = Self.isLoggingEnabled ? .debug : .warning
            var diskCache: DiskCache?
            if persistenceEnabled {
                do {
                    diskCache = try DiskCache(file: cacheFile, maximumBytes: Int(cacheSize), logger: logger)
                } catch {
                    logger.error("Persistence is off: the disk cache at \(cacheFile) cannot be opened: \(error)")
                }
            }
            let repo = Repo(database: self, target: url.target, callbackQueue: queue, diskCache: diskCache, logger: logger)
            startedRepo = repo
            return repo
        }
    }

    var databaseURL: DatabaseURL { lock.withLock { url } }

    /// Whether the database has been used (its connection exists).
    var isStarted: Bool { lock.withLock { startedRepo != nil } }

    /// Where the disk caches live: under ``SDKDirectories/userData``. Tests point it at a
    /// directory of their own.
    nonisolated(unsafe) static var persistenceRoot: String = (SDKDirectories.userData as NSString)
        .appendingPathComponent("hearth-database")

    /// One cache file per app and database (`<host>_<namespace>`).
    private var cacheFile: String {
        let name = "\(url.target.host)_\(url.target.namespace)".replacingOccurrences(of: ":", with: "_") + ".sqlite"
        return ((Self.persistenceRoot as NSString).appendingPathComponent(app?.name ?? "default") as NSString)
            .appendingPathComponent(name)
    }

    /// A reference to the root.
    public func reference() -> DatabaseReference {
        DatabaseReference(database: self, path: .root)
    }

    /// A reference to `path` ("users/alice").
    public func reference(withPath path: String) -> DatabaseReference {
        DatabaseReference(database: self, path: DatabaseReference.parsePath(path))
    }

    /// A reference to the location a full URL names; the URL must be this database's.
    public func reference(fromURL url: String) -> DatabaseReference {
        guard let parsed = DatabaseURL(url), let components = URLComponents(string: url) else {
            preconditionFailure("(referenceFromURL:) Invalid URL: \(url)")
        }
        precondition(
            parsed.target.namespace == databaseURL.target.namespace,
            "(referenceFromURL:) Invalid URL (\(url)) passed to getReference(). URL was not from the same database.")
        return reference(withPath: components.percentEncodedPath.removingPercentEncoding ?? components.path)
    }

    /// Disconnects; writes keep applying locally and queue until ``goOnline()``.
    public func goOffline() {
        let repo = repo
        repo.queue.async { repo.connection.interrupt() }
    }

    /// Reconnects after ``goOffline()``.
    public func goOnline() {
        let repo = repo
        repo.queue.async { repo.connection.resume() }
    }

    /// Drops every write not yet acknowledged (reverting its local events) and cancels queued
    /// requests with `write_canceled`.
    public func purgeOutstandingWrites() {
        repo.purgeOutstandingWrites()
    }

    /// Turns debug logging of the database on or off for databases made afterwards.
    public static func setLoggingEnabled(_ enabled: Bool) {
        instancesLock.withLock { loggingEnabled = enabled }
    }

    private static var isLoggingEnabled: Bool { instancesLock.withLock { loggingEnabled } }

    /// The SDK's version.
    public static func sdkVersion() -> String { "0.1.0" }

    /// Deleting an app closes its databases' connections and disk caches; the next
    /// `Database.database(app:)` for an app of that name starts afresh.
    private static let releasesDeletedApps: Void = FirebaseApp.addDeletionHandler { app in
        let removed = instancesLock.withLock {
            let keys = instances.filter { $0.value.app === app }.map(\.key)
            return keys.compactMap { instances.removeValue(forKey: $0) }
        }
        for database in removed { database.close() }
    }

    /// Shuts the connection; pending writes stay on disk when persistence is on.
    private func close() {
        guard let repo = lock.withLock({ startedRepo }) else { return }
        repo.close()
    }

    /// Every database made so far, for `DatabaseReference.goOffline()`/`goOnline()`.
    static var all: [Database] { instancesLock.withLock { Array(instances.values) } }
}
