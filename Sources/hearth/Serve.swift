import ArgumentParser
import Foundation
import HearthACME
import HearthAuthServer
import HearthBackup
import HearthDatabaseServer
import HearthEdge
import HearthPostgres
import HearthServer
import HearthStorageServer
import Logging

/// `hearth serve`: runs the server until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the Hearth server.")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free port).")
    var port = 9000

    @OptionGroup var data: DataDirectoryOption

    @Option(help: "The Firebase project id; the default database is <project>-default-rtdb.")
    var project = "demo-hearth"

    @Option(help: "Seconds an idle event stream waits before sending keep-alive.")
    var streamKeepAlive: Double = 30

    @Option(help: "Bytes of events that may wait for a slow streaming or realtime client before it is disconnected.")
    var streamBufferLimit = 16 * 1024 * 1024

    @Option(help: "Seconds a realtime (WebSocket) client may stay silent before its connection counts as dead.")
    var realtimeSilenceLimit: Double = 90

    @Option(help: "Seconds a long-polling realtime client may go without a poll open before its session ends.")
    var longPollTimeout: Double = 40

    @Option(
        help: "Seconds a connection may take to send a request head, or stay idle between HTTP requests, before it is closed."
    )
    var httpIdleTimeout: Double = 60

    @Option(help: "The most connections one IP address may hold open (default: 1000 in production, no cap in development; 0: no cap).")
    var maxConnectionsPerAddress: Int?

    @Option(help: "The slowest a request body may arrive after --body-rate-grace, in bytes per second (0: any rate).")
    var minBodyRate = 500

    @Option(help: "Seconds a request body may take before --min-body-rate applies.")
    var bodyRateGrace: Double = 20

    @Option(help: "Seconds a database namespace that no client uses stays open before it is closed.")
    var namespaceIdleTimeout: Double = 60

    @Option(help: "Writes each database namespace keeps for its history (the console's History view; 0: none).")
    var historyWrites = 100_000

    @Option(help: "Bytes of writes each database namespace keeps for its history at most.")
    var historyBytes = 64 << 20

    @Option(help: "Megabytes of memory the database data read from disk may take, all namespaces together (by estimate).")
    var databaseCacheMb = 512

    @Option(help: "The database rules file (default: the one firebase.json in this directory names).")
    var rules: String?

    @Flag(help: "Production mode: without a rules file only signed-in users may read and write, and denials are not explained.")
    var production = false

    @Option(help: "An API key Authentication accepts in production (repeatable; without one, any key is accepted).")
    var apiKey: [String] = []

    @Option(
        help:
            "Minutes within which a user must have signed in to change email or password or delete the account (default: 5 in production, unchecked in development)."
    )
    var recentLoginMinutes: Int?

    @Option(help: "An OAuth client id whose Google ID tokens sign-in accepts in production (repeatable).")
    var googleClientId: [String] = []

    @Option(help: "Where Google's token signing keys (JWKS) are fetched.")
    var googleKeysUrl = "https://www.googleapis.com/oauth2/v3/certs"

    @Option(help: "The Facebook app whose access tokens sign-in accepts in production.")
    var facebookAppId: String?

    @Option(help: "The Facebook app's secret, used to check access tokens with the Graph API.")
    var facebookAppSecret: String?

    @Option(help: "The Facebook Graph API.")
    var facebookGraphUrl = "https://graph.facebook.com"

    @Option(help: "A bundle or service id whose Sign in with Apple ID tokens sign-in accepts in production (repeatable).")
    var appleClientId: [String] = []

    @Option(help: "Where Apple's token signing keys (JWKS) are fetched.")
    var appleKeysUrl = "https://appleid.apple.com/auth/keys"

    @Option(help: "New accounts one IP address may create per hour in production.")
    var signUpsPerHour = 100

    @Option(help: "Delete anonymous accounts never upgraded this many days after their creation (Firebase uses 30; off by default).")
    var anonymousAccountDays: Int?

    @Option(help: "Deliver action emails through this SMTP server: smtp://user:pass@host:port (STARTTLS when offered) or smtps://….")
    var smtpUrl: String?

    @Option(help: "A folder of email templates (<mode>.txt with a 'Subject:' first line, optional <mode>.html).")
    var emailTemplates = "auth-emails"

    @Option(
        help:
            "The URL users reach Hearth at (https://auth.example.com); production's action links point there (default: the address Hearth listens on)."
    )
    var publicUrl: String?

    @Option(help: "A host a continueUrl may point at in production (repeatable), besides localhost and the public URL's host.")
    var authorizedDomain: [String] = []

    @Option(help: "Also serve Storage alone on this port (as the Storage emulator's 9199).")
    var storagePort: Int?

    @Option(help: "The console's port (default 4000, as the Emulator Suite UI; 0 picks a free port).")
    var consolePort: Int?

    @Flag(help: "Serve no console.")
    var noConsole = false

    @Option(help: "The storage rules file (default: the one firebase.json in this directory names).")
    var storageRules: String?

    @Option(help: "The largest object Storage accepts, in bytes (default 5 TiB, as Cloud Storage).")
    var maxObjectSize: Int64 = 5 << 40

    @Option(help: "Seconds a resumable upload may sit idle before it and its bytes are deleted (default a week, as Cloud Storage).")
    var resumableUploadExpiry: Double = 7 * 24 * 3600

    @Option(help: "Resumable uploads one user (or signed-out IP address) may have open at once (default 100).")
    var maxOpenUploads = 100

    @Option(help: "Bytes the open resumable uploads of one user (or signed-out IP address) may hold (default 10 GiB).")
    var maxUnfinishedUploadBytes: Int64 = 10 << 30

    @Option(help: "Take backups into this directory while serving, one folder each (see --backup-every, --backup-keep).")
    var backupDir: String?

    @Option(help: "How often to take a backup: a number and s, m, h or d (e.g. 6h).")
    var backupEvery = "24h"

    @Option(help: "How many complete backups --backup-dir keeps.")
    var backupKeep = 7

    @Option(help: "Serve HTTPS (and wss://) on the main port with this certificate chain (PEM), reloaded when it changes.")
    var tlsCert: String?

    @Option(help: "The private key (PEM) of --tls-cert.")
    var tlsKey: String?

    @Option(help: "With --tls-cert or --https, also listen for plain HTTP on this port and redirect every request to HTTPS.")
    var httpRedirectPort: Int?

    @Option(
        name: .customLong("https"),
        help: "Serve HTTPS on the main port with a certificate for this name (repeatable), obtained and renewed over ACME.")
    var httpsNames: [String] = []

    @Option(help: "The ACME server's directory (default Let's Encrypt's).")
    var acmeDirectory = ACMESettings.letsEncrypt

    @Option(help: "The address the ACME server may write to about the account (expiry notices).")
    var acmeEmail: String?

    @Option(
        help: "How --https proves its names: tls-alpn-01 on the main port, or http-01 on --http-redirect-port (the default when it is set)."
    )
    var acmeChallenge: ACMEChallengeKind?

    @Option(help: "A PEM file of roots to trust for the ACME server's own HTTPS, besides the system's (a private CA).")
    var acmeCaRoots: String?

    @Option(
        help:
            "Archive the database's durable log, and the changes of accounts, Storage and the console, into this directory as they are written, for restores to a point in time."
    )
    var logArchive: String?

    @Option(
        help: ArgumentHelp(
            "Keep the database's namespaces, Authentication's accounts and keys, and Storage's objects in PostgreSQL, shared by every node given the same URL (postgres://user:password@host:port/database?sslmode=disable); HEARTH_POSTGRES_URL otherwise.",
            valueName: "url"))
    var postgres: String?

    @Option(
        help: ArgumentHelp(
            "With --postgres: where this node serves clients, as the other nodes send them here (default: --host and --port).",
            valueName: "host:port"))
    var advertise: String?

    @Option(
        help: ArgumentHelp(
            "With --postgres: a directory every node shares (NFS or similar) for the bytes of Storage's objects, rather than PostgreSQL (their metadata stays in PostgreSQL).",
            valueName: "directory"))
    var blobDir: String?

    @Flag(
        help:
            "With --postgres: serve the realtime clients of namespaces another node owns here, from a replica the owner keeps current, rather than sending them to the owner."
    )
    var relay = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "notice"

    @Option(help: "Log lines as text, or as one JSON object per line (time, level, product, request, uid, message).")
    var logFormat = ConsoleLogHandler.Format.text

    static let defaultConsolePort = 4000

    func validate() throws {
        if noConsole, consolePort != nil { throw ValidationError("--console-port and --no-console exclude each other") }
        // The console needs an origin of its own: uploaded files must never run beside it.
        let console = consolePort ?? Self.defaultConsolePort
        if !noConsole, console != 0, console == port || console == storagePort {
            throw ValidationError("the console needs a port of its own (--console-port), not the one serving the API or Storage")
        }
        let durations = [
            ("--stream-keep-alive", streamKeepAlive), ("--realtime-silence-limit", realtimeSilenceLimit),
            ("--long-poll-timeout", longPollTimeout), ("--http-idle-timeout", httpIdleTimeout),
            ("--namespace-idle-timeout", namespaceIdleTimeout), ("--body-rate-grace", bodyRateGrace),
        ]
        for (flag, seconds) in durations where !(seconds > 0) {
            throw ValidationError("\(flag) must be a positive number of seconds")
        }
        if minBodyRate < 0 { throw ValidationError("--min-body-rate must not be negative") }
        if historyWrites < 0 || historyBytes < 0 { throw ValidationError("--history-writes and --history-bytes must not be negative") }
        if databaseCacheMb < 1 { throw ValidationError("--database-cache-mb must be at least 1") }
        if let cap = maxConnectionsPerAddress, cap < 0 { throw ValidationError("--max-connections-per-address must not be negative") }
        if maxObjectSize < 0 { throw ValidationError("--max-object-size must not be negative") }
        if !(resumableUploadExpiry > 0) { throw ValidationError("--resumable-upload-expiry must be a positive number of seconds") }
        if maxOpenUploads < 1 { throw ValidationError("--max-open-uploads must be at least 1") }
        if BackupSchedule.duration(backupEvery) == nil {
            throw ValidationError("--backup-every must be a number and s, m, h or d (e.g. 6h)")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        if !httpsNames.isEmpty, tlsCert != nil { throw ValidationError("--https and --tls-cert exclude each other") }
        if httpRedirectPort != nil, tlsCert == nil, httpsNames.isEmpty {
            throw ValidationError("--http-redirect-port needs --tls-cert and --tls-key, or --https")
        }
        try validateACME()
        if backupKeep < 1 { throw ValidationError("--backup-keep must be at least 1") }
        if let backupDir, let refusal = DirectoryOverlap.refusal(of: backupDir, named: "the backup directory", dataDirectory: data.dataDir)
        {
            throw ValidationError(refusal)
        }
        if let logArchive, let refusal = DirectoryOverlap.refusal(of: logArchive, named: "the log archive", dataDirectory: data.dataDir) {
            throw ValidationError(refusal)
        }
        if maxUnfinishedUploadBytes < 0 { throw ValidationError("--max-unfinished-upload-bytes must not be negative") }
        try validatePostgres()
    }

    /// The PostgreSQL URL, from `--postgres` or `HEARTH_POSTGRES_URL`.
    private var postgresURL: String? {
        postgres ?? ProcessInfo.processInfo.environment["HEARTH_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A URL PostgreSQL can be reached at, and nothing that only works on the data directory's log.
    private func validatePostgres() throws {
        guard let postgresURL else {
            if advertise != nil { throw ValidationError("--advertise needs --postgres") }
            if blobDir != nil { throw ValidationError("--blob-dir needs --postgres") }
            if relay { throw ValidationError("--relay needs --postgres") }
            return
        }
        do {
            _ = try PostgresAddress(url: postgresURL)
        } catch {
            throw ValidationError("--postgres: \(error)")
        }
        if let advertise {
            guard let colon = advertise.lastIndex(of: ":"), colon != advertise.startIndex,
                let port = Int(advertise[advertise.index(after: colon)...]), (1...65535).contains(port)
            else { throw ValidationError("--advertise must be host:port") }
        } else if port == 0 || host == "0.0.0.0" || host == "::" {
            throw ValidationError("--postgres with --port 0 or a wildcard --host needs --advertise host:port")
        }
        if relay, tlsCert != nil || !httpsNames.isEmpty {
            throw ValidationError("--relay links nodes over plain HTTP: run the nodes without TLS, behind a proxy that ends it")
        }
        if logArchive != nil || backupDir != nil {
            throw ValidationError(
                "--log-archive and --backup-dir keep the data directory's database; with --postgres, PostgreSQL's own backups (pg_basebackup with WAL archiving) keep it"
            )
        }
    }

    /// The ACME flags: names a certificate can be had for, and settings that can work.
    private func validateACME() throws {
        if httpsNames.isEmpty {
            let stray = [
                ("--acme-email", acmeEmail != nil), ("--acme-challenge", acmeChallenge != nil), ("--acme-ca-roots", acmeCaRoots != nil),
                ("--acme-directory", acmeDirectory != ACMESettings.letsEncrypt),
            ].first { $0.1 }
            if let (flag, _) = stray { throw ValidationError("\(flag) needs --https") }
            return
        }
        for name in httpsNames where !ACMESettings.isCertifiable(name) {
            throw ValidationError("--https \(name) is not a DNS name a certificate can be obtained for over HTTP-01 or TLS-ALPN-01")
        }
        if Set(httpsNames.map { $0.lowercased() }).count != httpsNames.count { throw ValidationError("--https names a name twice") }
        if httpsNames.count > ACMESettings.maximumNames {
            throw ValidationError("--https names more than \(ACMESettings.maximumNames) names, more than a certificate may hold")
        }
        if acmeChallenge == .http01, httpRedirectPort == nil {
            throw ValidationError("--acme-challenge http-01 needs --http-redirect-port (port 80 in production)")
        }
        guard acmeDirectory.hasPrefix("https://"), URL(string: acmeDirectory)?.host != nil else {
            throw ValidationError("--acme-directory must be an https:// URL")
        }
        if let acmeEmail, !ACMESettings.isContactEmail(acmeEmail) {
            throw ValidationError("--acme-email \(acmeEmail) is not an email address")
        }
        if let acmeCaRoots, !FileManager.default.isReadableFile(atPath: acmeCaRoots) {
            throw ValidationError("--acme-ca-roots \(acmeCaRoots) cannot be read")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .notice
        let logger = Logger(label: "hearth") { label in
            ConsoleLogHandler(label: label, level: level, format: logFormat, metadataProvider: RequestIdentity.metadataProvider)
        }
        let rulesFile = try rules.map(RulesFile.init(path:)) ?? RulesFile.named(byProjectIn: FileManager.default.currentDirectoryPath)
        var configuration = HearthConfiguration(
            host: host, port: port, dataDirectory: data.dataDir, projectID: project,
            streamKeepAliveInterval: .milliseconds(Int64(streamKeepAlive * 1000)),
            streamBufferLimit: streamBufferLimit,
            realtimeSilenceLimit: .milliseconds(Int64(realtimeSilenceLimit * 1000)),
            httpIdleTimeout: .milliseconds(Int64(httpIdleTimeout * 1000)),
            namespaceIdleTimeout: .milliseconds(Int64(namespaceIdleTimeout * 1000)),
            rulesFile: rulesFile, production: production, apiKeys: Set(apiKey),
            recentLoginWindow: recentLoginMinutes.map { Int64($0) * 60 })
        configuration.identityProviders = IdentityProviderSettings(
            googleClientIDs: Set(googleClientId), googleKeysURL: googleKeysUrl, facebookAppID: facebookAppId,
            facebookAppSecret: facebookAppSecret, facebookGraphURL: facebookGraphUrl, appleClientIDs: Set(appleClientId),
            appleKeysURL: appleKeysUrl)
        configuration.longPollTimeout = .milliseconds(Int64(longPollTimeout * 1000))
        configuration.maximumConnectionsPerAddress = maxConnectionsPerAddress
        configuration.minimumBodyRate = minBodyRate
        configuration.namespaceStore = NamespaceStoreOptions(keptWrites: historyWrites, keptBytes: historyBytes)
        configuration.namespaceStore.cacheBytes = databaseCacheMb << 20
        configuration.namespaceStore.logArchiveDirectory = logArchive
        configuration.postgres = try postgresURL.map { try PostgresAddress(url: $0) }
        configuration.advertisedAddress = advertise
        configuration.relays = relay
        configuration.blobDirectory = blobDir.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        if postgresURL != nil { configuration.nodeID = try NodeIdentity.load(dataDirectory: data.dataDir) }
        configuration.bodyGracePeriod = .milliseconds(Int64(bodyRateGrace * 1000))
        configuration.signUpsPerHour = signUpsPerHour
        configuration.anonymousAccountLifetimeDays = anonymousAccountDays
        configuration.smtpURL = smtpUrl
        configuration.emailTemplatesDirectory = emailTemplates
        configuration.publicURL = publicUrl
        configuration.authorizedDomains = Set(authorizedDomain.map { $0.lowercased() })
        configuration.storagePort = storagePort
        if !noConsole {
            configuration.consolePort = consolePort ?? Self.defaultConsolePort
            configuration.consolePortRequired = consolePort != nil
        }
        configuration.storageRulesFile =
            try storageRules.map(StorageRulesFile.init(path:))
            ?? StorageRulesFile.named(byProjectIn: FileManager.default.currentDirectoryPath)
        configuration.backupSchedule = backupDir.map { directory in
            // Validated above.
            BackupSchedule(directory: directory, interval: BackupSchedule.duration(backupEvery)!, keep: backupKeep)
        }
        if let tlsCert, let tlsKey {
            configuration.tls = .files(
                try TLSCertificateFiles(certificatePath: tlsCert, keyPath: tlsKey, into: TLSCertificates(), logger: logger))
        } else if !httpsNames.isEmpty {
            var settings = ACMESettings(
                names: httpsNames.map { $0.lowercased() }, challenge: acmeChallenge ?? (httpRedirectPort == nil ? .tlsALPN01 : .http01))
            settings.directoryURL = acmeDirectory
            settings.contactEmail = acmeEmail
            settings.trustedRootsFile = acmeCaRoots
            let manager = ACMECertificateManager(
                settings: settings, dataDirectory: data.dataDir, certificates: TLSCertificates(), logger: logger)
            manager.serveKept()
            configuration.tls = .acme(manager)
        }
        configuration.httpRedirectPort = httpRedirectPort
        configuration.maximumObjectSize = maxObjectSize
        configuration.resumableUploadLimits.idleExpiry = .milliseconds(Int64(resumableUploadExpiry * 1000))
        configuration.resumableUploadLimits.sessionsPerCaller = maxOpenUploads
        configuration.resumableUploadLimits.unfinishedBytesPerCaller = maxUnfinishedUploadBytes
        let server = try HearthServer(
            configuration: configuration,
            logger: logger)
        let host = self.host
        try await server.run(
            onListening: { port in
                // Unbuffered, so that scripts waiting for this line see it at once.
                let scheme = tlsCert == nil && httpsNames.isEmpty ? "http" : "https"
                FileHandle.standardOutput.write(Data("Hearth listening on \(scheme)://\(host):\(port)\n".utf8))
            },
            onConsoleListening: { port in
                FileHandle.standardOutput.write(Data("Console listening on http://\(host):\(port)\n".utf8))
            })
    }
}

extension ConsoleLogHandler.Format: ExpressibleByArgument {}
extension ACMEChallengeKind: ExpressibleByArgument {}
