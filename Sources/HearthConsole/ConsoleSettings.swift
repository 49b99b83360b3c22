/// How the console is served.
public struct ConsoleSettings: Sendable {
    /// The address the console listens on (the server's own).
    public var host: String
    /// The console's port (4000 by default, as the Emulator Suite UI); 0 picks a free one.
    public var port: Int
    /// Whether Hearth runs in production mode.
    public var production: Bool
    /// The Firebase project the console shows.
    public var projectID: String
    /// The database namespace the data view opens first.
    public var defaultNamespace: String
    /// The project's Storage buckets, the first opened first.
    public var buckets: [String]
    /// Where browsers reach the main port when it is not this host at the main port (a public
    /// URL in front of Hearth); previews of stored files are fetched from there.
    public var publicURL: String?

    public init(
        host: String, port: Int, production: Bool, projectID: String, defaultNamespace: String, buckets: [String],
        publicURL: String?
    ) {
        self.host = host
        self.port = port
        self.production = production
        self.projectID = projectID
        self.defaultNamespace = defaultNamespace
        self.buckets = buckets
        self.publicURL = publicURL
    }

    /// Whether administrators must sign in: always in production, and in development when the
    /// console listens beyond the loopback interface.
    public var requiresSignIn: Bool {
        production || !Self.loopbackHosts.contains(host)
    }

    /// The names a loopback console answers to (any other `Host` is refused, so that a web page
    /// cannot reach it through DNS rebinding).
    static let loopbackHosts: Set<String> = ["127.0.0.1", "localhost", "::1", "[::1]"]
}
