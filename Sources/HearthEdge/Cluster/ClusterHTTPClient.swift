import AsyncHTTPClient

/// The HTTP client of every request one node of a cluster makes to another: requests passed on
/// to an owner (``OwnerForwarding``) and relays' links to namespaces' owners.
package enum ClusterHTTPClient {
    /// Redirects and compressed bodies pass through as they are. A node of the cluster answers a
    /// connection at once; one that does not within a second is taken for dead (the client
    /// retries a refused connection until then).
    package static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(1)), decompression: .disabled)
        // Each event stream and each relay's link holds a connection for as long as it lasts.
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 4096)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
}
