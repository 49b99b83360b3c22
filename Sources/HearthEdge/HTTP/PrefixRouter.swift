import Hummingbird

/// Routes each request by its path to the first product that claims it, and every other path to
/// the fallback (the database's REST API, whose paths are the data's). Products are tried in the
/// order mounted: where a Storage prefix and a database path ending in `.json` collide, mounting
/// Storage first makes it win.
///
/// Every answer leaves with `X-Content-Type-Options: nosniff`: each product labels its bodies
/// (JSON, scripts, pages, stored objects), and a browser must never guess another type for them.
/// Each answer is counted by product and status class, and while the requests feed is followed,
/// every request is recorded in it under its product's name.
package struct PrefixRouter: Sendable {
    /// How a product answers a request it claimed.
    package typealias Respond = @Sendable (Request, HearthRequestContext) async -> Response

    private struct Route: Sendable {
        let product: String
        let claims: @Sendable (String) -> Bool
        let respond: Respond
        let counters: RequestCounters?
    }

    private var routes: [Route] = []
    private let fallback: Route
    private let feed: RequestFeed?
    private let metrics: TrafficMetrics?

    /// A router that sends unclaimed paths to `fallback`, the product named `product`.
    package init(product: String, fallback: @escaping Respond, feed: RequestFeed? = nil, metrics: TrafficMetrics? = nil) {
        self.fallback = Route(
            product: product, claims: { _ in true }, respond: fallback, counters: metrics?.requests(of: product))
        self.feed = feed
        self.metrics = metrics
    }

    /// Sends the paths `claims` accepts to `respond`, the product named `product`, after the
    /// routes mounted before.
    package mutating func mount(
        product: String, claims: @escaping @Sendable (String) -> Bool, respond: @escaping Respond
    ) {
        routes.append(Route(product: product, claims: claims, respond: respond, counters: metrics?.requests(of: product)))
    }

    /// The answer of the product that claims `request`'s path.
    package func respond(to request: Request, context: HearthRequestContext) async -> Response {
        let identity = RequestIdentity(headers: request.headers)
        var response = await RequestIdentity.$current.withValue(identity) { await route(request, context: context) }
        response.headers[RequestIdentity.header] = identity.id
        return response
    }

    private func route(_ request: Request, context: HearthRequestContext) async -> Response {
        let path = request.uri.path
        let route = routes.first { $0.claims(path) } ?? fallback
        var response: Response
        if let feed {
            response = await feed.recording(
                product: route.product, transport: "http", method: request.method.rawValue, path: path,
                { await route.respond(request, context) },
                status: { ("\($0.status.code)", $0.status.code >= 400) })
        } else {
            response = await route.respond(request, context)
        }
        route.counters?.count(status: response.status.code)
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }

    /// The responder a Hummingbird application serves with.
    package var responder: CallbackResponder<HearthRequestContext> {
        CallbackResponder { [self] request, context in await respond(to: request, context: context) }
    }
}
