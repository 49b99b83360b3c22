import Hummingbird

/// Routes each request by its path to the first product that claims it, and every other path to
/// the fallback (the database's REST API, whose paths are the data's). Products are tried in the
/// order mounted: where a Storage prefix and a database path ending in `.json` collide, mounting
/// Storage first makes it win.
///
/// Every answer leaves with `X-Content-Type-Options: nosniff`: each product labels its bodies
/// (JSON, scripts, pages, stored objects), and a browser must never guess another type for them.
package struct PrefixRouter: Sendable {
    /// How a product answers a request it claimed.
    package typealias Respond = @Sendable (Request, HearthRequestContext) async -> Response

    private var routes: [(claims: @Sendable (String) -> Bool, respond: Respond)] = []
    private let fallback: Respond

    package init(fallback: @escaping Respond) {
        self.fallback = fallback
    }

    /// Sends the paths `claims` accepts to `respond`, after the routes mounted before.
    package mutating func mount(claims: @escaping @Sendable (String) -> Bool, respond: @escaping Respond) {
        routes.append((claims, respond))
    }

    /// The answer of the product that claims `request`'s path.
    package func respond(to request: Request, context: HearthRequestContext) async -> Response {
        let path = request.uri.path
        let respond = routes.first { $0.claims(path) }?.respond ?? fallback
        var response = await respond(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }

    /// The responder a Hummingbird application serves with.
    package var responder: CallbackResponder<HearthRequestContext> {
        CallbackResponder { [self] request, context in await respond(to: request, context: context) }
    }
}
