import HearthAuthServer
import HearthBackup
import HearthConsole
import HearthDatabaseServer
import HearthEdge
import HearthPostgres
import HearthStorageServer

/// Settings of one Hearth server, from flags or a test.
public struct HearthConfiguration: Sendable {
    /// The address to listen on.
    public var host: String
    /// The port to listen on; 0 picks a free one.
    public var port: Int
    /// Where databases and other durable state live.
    public var dataDirectory: String
    /// The Firebase project id; the default database namespace is `<project>-default-rtdb`.
    public var projectID: String
    /// How long an idle event stream waits before sending `keep-alive`.
    public var streamKeepAliveInterval: Duration
    /// How many bytes of events may wait for one slow streaming or realtime client before it is
    /// disconnected.
    public var streamBufferLimit: Int
    /// The largest body a REST write may carry (Firebase: 256 MB).
    public var maximumRESTWriteBytes: Int
    /// The largest message a realtime client may send (Firebase: 16 MB per SDK write).
    public var maximumRealtimeMessageBytes: Int
    /// How long a realtime client may stay silent before its connection counts as dead (clients
    /// send a keepalive after 45 s without traffic).
    public var realtimeSilenceLimit: Duration
    /// How long a long-polling realtime client may go without a poll open before its session
    /// ends (clients poll again as soon as a poll is answered, and at least every 25 s).
    public var longPollTimeout: Duration = .seconds(40)
    /// How long a connection may take to send a complete request head, and how long an HTTP
    /// connection may stay idle between requests, before it is closed. Realtime connections,
    /// event streams and held long-polls are not bounded by it.
    public var httpIdleTimeout: Duration
    /// The most connections one IP address may hold open at once; `nil` uses the mode's default
    /// (1,000 in production, no cap in development), 0 sets no cap.
    public var maximumConnectionsPerAddress: Int?
    /// The slowest a request body may arrive once ``bodyGracePeriod`` has passed, in bytes per
    /// second (0: any rate).
    public var minimumBodyRate = 500
    /// How long a request body may take before ``minimumBodyRate`` applies.
    public var bodyGracePeriod: Duration = .seconds(20)
    /// How long a namespace that nothing uses stays open (its file and its data in memory).
    public var namespaceIdleTimeout: Duration
    /// How much of its write log each namespace keeps for its history, and how much memory the
    /// data read from the namespaces' files may take.
    package var namespaceStore = NamespaceStoreOptions()
    /// Where the database's namespaces are kept when they are shared by a cluster of nodes
    /// (``PostgresNamespaces``); `nil` keeps them in the data directory.
    package var postgres: PostgresAddress?
    /// Where this node serves clients (`host:port`), for the other nodes of a cluster to send
    /// the clients of the namespaces this one owns; `nil`: ``host`` and ``port``.
    package var advertisedAddress: String?
    /// Where this node serves the other nodes of its cluster and the clients they send here.
    var clusterAddress: String { advertisedAddress ?? "\(host):\(port)" }
    /// With ``postgres``: whether this node serves the realtime clients of namespaces other
    /// nodes own, from replicas (relays), rather than sending them to the owners.
    package var relays = false
    /// With ``postgres``: the directory every node shares that holds the bytes of Storage's
    /// objects; `nil` keeps them in PostgreSQL too.
    package var blobDirectory: String?
    /// This node's identity in a cluster (``NodeIdentity``); `nil`: a new one for each run.
    package var nodeID: String?
    /// The database rules file every namespace enforces, reloaded when it changes.
    public var rulesFile: RulesFile?
    /// Production mode: without a rules file, namespaces require sign-in (`auth != null`)
    /// instead of being open, and denials are not explained in the log.
    public var production: Bool
    /// The API keys Authentication accepts in production (any key when empty).
    public var apiKeys: Set<String>
    /// Seconds within which a user must have signed in to change credentials or delete the
    /// account; `nil` uses the mode's default (production 300 s, development unchecked).
    public var recentLoginWindow: Int64?
    /// How production checks Google and Facebook credentials.
    public var identityProviders = IdentityProviderSettings()
    /// New accounts one IP address may create per hour in production.
    public var signUpsPerHour = 100
    /// Days after which anonymous accounts never upgraded are deleted; `nil` keeps them.
    public var anonymousAccountLifetimeDays: Int?
    /// Where action emails go (`smtp://user:pass@host:port`); `nil` logs them instead.
    public var smtpURL: String?
    /// Email templates overriding the built-in texts.
    public var emailTemplatesDirectory: String?
    /// Where users reach Hearth; production's action links point there. `nil`: the address it
    /// listens on.
    public var publicURL: String?
    /// Hosts a `continueUrl` may point at in production, besides `localhost` and the public URL's.
    public var authorizedDomains: Set<String> = []
    /// A port that serves Storage alone (as the emulator's 9199), besides the main port.
    public var storagePort: Int?
    /// The console's port (its own origin); `nil` serves no console.
    public var consolePort: Int?
    /// Whether a console port that cannot be bound stops the server. When false (the default
    /// port was not asked for), the server runs without a console and says why.
    public var consolePortRequired = true
    /// The storage rules file, reloaded when it changes; `nil` uses the mode's default rules.
    public var storageRulesFile: StorageRulesFile?
    /// The largest object Storage accepts, in bytes (GCS: 5 TiB).
    public var maximumObjectSize: Int64 = 5 << 40
    /// Where the certificate the main port serves TLS with (`https://`, `wss://`) comes from;
    /// `nil` serves plain HTTP.
    package var tls: TLSSource?
    /// A plain-HTTP port that redirects every request to the HTTPS main port; `nil` for none.
    public var httpRedirectPort: Int?
    /// Backups taken while serving; `nil` takes none.
    public var backupSchedule: BackupSchedule?
    /// Expiry of idle resumable uploads and their caps per caller (a week, 100 sessions, 10 GiB).
    public var resumableUploadLimits = ResumableUploadLimits()

    public init(
        host: String = "127.0.0.1", port: Int = 9000, dataDirectory: String = "./hearth-data",
        projectID: String = "demo-hearth", streamKeepAliveInterval: Duration = .seconds(30),
        streamBufferLimit: Int = 16 * 1024 * 1024, maximumRESTWriteBytes: Int = 256 * 1024 * 1024,
        maximumRealtimeMessageBytes: Int = 16 * 1024 * 1024, realtimeSilenceLimit: Duration = .seconds(90),
        httpIdleTimeout: Duration = .seconds(60), namespaceIdleTimeout: Duration = .seconds(60), rulesFile: RulesFile? = nil,
        production: Bool = false, apiKeys: Set<String> = [], recentLoginWindow: Int64? = nil
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.projectID = projectID
        self.streamKeepAliveInterval = streamKeepAliveInterval
        self.streamBufferLimit = streamBufferLimit
        self.maximumRESTWriteBytes = maximumRESTWriteBytes
        self.maximumRealtimeMessageBytes = maximumRealtimeMessageBytes
        self.realtimeSilenceLimit = realtimeSilenceLimit
        self.httpIdleTimeout = httpIdleTimeout
        self.namespaceIdleTimeout = namespaceIdleTimeout
        self.rulesFile = rulesFile
        self.production = production
        self.apiKeys = apiKeys
        self.recentLoginWindow = recentLoginWindow
    }

    /// How Authentication behaves under these settings.
    public var authSettings: AuthSettings {
        var settings = AuthSettings(
            projectID: projectID, production: production, apiKeys: apiKeys, recentLoginWindow: recentLoginWindow,
            identityProviders: identityProviders)
        settings.signUpsPerHour = signUpsPerHour
        settings.smtpURL = smtpURL
        settings.emailTemplatesDirectory = emailTemplatesDirectory
        settings.publicURL = publicURL ?? "http://\(host):\(port)"
        settings.authorizedDomains = authorizedDomains
        return settings
    }

    /// The connection limits these settings give, the mode's default cap resolved.
    public var connectionLimits: ConnectionLimits {
        let cap = maximumConnectionsPerAddress ?? (production ? 1_000 : 0)
        return ConnectionLimits(
            maximumPerAddress: cap > 0 ? cap : nil, minimumBodyRate: minimumBodyRate, bodyGracePeriod: bodyGracePeriod)
    }

    /// How the console is served under these settings (its port resolved by the caller).
    public func consoleSettings(port: Int) -> ConsoleSettings {
        ConsoleSettings(
            host: host, port: port, production: production, projectID: projectID, defaultNamespace: defaultNamespace,
            buckets: storageSettings.defaultBuckets, publicURL: publicURL)
    }

    /// How Storage behaves under these settings.
    public var storageSettings: StorageSettings {
        var settings = StorageSettings(projectID: projectID, maximumObjectSize: maximumObjectSize, production: production)
        settings.resumableUploads = resumableUploadLimits
        return settings
    }

    /// The namespace REST requests without `ns` use, named as Firebase names a default database.
    public var defaultNamespace: String { "\(projectID)-default-rtdb" }
}
