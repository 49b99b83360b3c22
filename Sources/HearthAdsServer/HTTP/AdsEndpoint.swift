import HearthEdge
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The ads server's requests (`/ads/v1/`) as this node receives them: answered here
/// (``AdsAPI``) when this node serves the ads, else passed on to the node of the cluster that
/// does (``ClusteredAds``).
package struct AdsEndpoint: Sendable {
    /// The largest body any ads endpoint reads.
    static let maximumBodyBytes = 1 << 20

    let serving: AdsServing
    let credentials: any CredentialVerifying
    /// Where users reach the server (`https://ads.example.com`), which uploaded images' URLs
    /// name; `nil`: the address a request reached.
    let publicOrigin: String?

    /// - Parameter publicURL: where users reach the server; its origin starts uploaded images'
    ///   URLs.
    package init(serving: AdsServing, credentials: any CredentialVerifying, publicURL: String? = nil) {
        self.serving = serving
        self.credentials = credentials
        self.publicOrigin = publicURL.flatMap { url in
            guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else {
                return nil
            }
            return components.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
        }
    }

    package static func claims(_ path: String) -> Bool { AdsRoute.claims(path) }

    package func respond(to request: Request, context: HearthRequestContext) async -> Response {
        do {
            switch serving {
            case .standalone(let service):
                return try await answer(request, with: service)
            case .cluster(let cluster):
                return try await respond(to: request, in: cluster, context: context)
            }
        } catch let error as AdsError {
            return AdsResponses.error(error)
        } catch {
            context.logger.error("ads request failed", metadata: ["error": "\(logSafe: error)"])
            return AdsResponses.error(.unavailable("The ads store cannot be used now."))
        }
    }

    private func answer(_ request: Request, with service: AdsService) async throws -> Response {
        try await AdsAPI(service: service, credentials: credentials, publicOrigin: publicOrigin).handle(
            request, route: AdsRoute(path: request.uri.path))
    }

    /// Answers `request` on a node of a cluster: here when this node serves the ads, else by
    /// the node that does. When that node cannot be reached, the lease is asked for again and
    /// the request sent again, up to ``attempts`` times in all (a node that died holding the
    /// lease frees it as soon as PostgreSQL notices); so is one that failed later, when
    /// repeating it changes nothing (a read, or an event, which counts once).
    private func respond(to received: Request, in cluster: ClusteredAds, context: HearthRequestContext) async throws -> Response {
        // Read whole first, so that it can be sent twice.
        var request = received
        _ = try await Self.collectBody(of: &request)
        let forwarded = OwnerForwarding.isForwarded(request)
        for attempt in 1...Self.attempts {
            if attempt > 1 {
                // PostgreSQL frees a dead node's lock only once it notices its session ended.
                try await Task.sleep(for: .milliseconds(100 * (attempt - 1)))
            }
            let address: String
            // After a holder that could not be reached, PostgreSQL is asked again.
            switch try await cluster.server(trustingWhatIsKnown: attempt == 1) {
            case .here(let service): return try await answer(request, with: service)
            case .node(let holder): address = holder
            }
            guard !forwarded else { throw AdsError.unavailable("The ads service is moving between nodes; retry.") }
            do {
                return try await OwnerForwarding.forward(request, to: address, maximumBodyBytes: Self.maximumBodyBytes)
            } catch {
                cluster.holderUnreachable(address)
                context.logger.error(
                    "the node serving the ads did not answer",
                    metadata: ["node": "\(address)", "attempt": "\(attempt)", "error": "\(logSafe: error)"])
                guard OwnerForwarding.neverReached(error) || Self.isRepeatable(request) else { break }
            }
        }
        throw AdsError.unavailable("The node serving the ads is unavailable; retry.")
    }

    /// How many times a request is sent to the node serving the ads, at most.
    static let attempts = 3

    /// Whether sending `request` twice does what sending it once does.
    private static func isRepeatable(_ request: Request) -> Bool {
        request.method == .get || request.method == .head || AdsRoute(path: request.uri.path) == .events
    }

    /// The body of `request`, read whole and kept in it; refused past ``maximumBodyBytes``,
    /// before it is read when its length says so.
    static func collectBody(of request: inout Request) async throws(AdsError) -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBodyBytes {
            throw .bodyTooLarge(limit: maximumBodyBytes)
        }
        do {
            return try await request.collectBody(upTo: maximumBodyBytes)
        } catch {
            throw .bodyTooLarge(limit: maximumBodyBytes)
        }
    }
}
