import HTTPTypes
import HearthCore
import HearthEdge
import Hummingbird

/// The figures of the traffic view that `/metrics` does not carry: listeners by location and
/// query, and denials by path.
package typealias TrafficSource = @Sendable () async -> JSONValue

extension ConsoleEndpoint {
    /// `GET /console/requests`: Server-Sent Events, one `request` event per request served by
    /// any product from now on (see ``RequestRecord/json``), the console's own included and
    /// marked. Nothing is recorded while no console follows.
    func requests(_ request: Request, visitor: Visitor) -> Response {
        if case .signedOut = visitor { return ConsoleResponses.error("SIGN_IN_REQUIRED", status: .unauthorized) }
        guard request.method == .get else { return ConsoleResponses.error("METHOD_NOT_ALLOWED", status: .methodNotAllowed) }
        let records = feed.follow()
        let (events, continuation) = AsyncStream.makeStream(of: String.self)
        let rendering = Task {
            for await record in records { continuation.yield("event: request\ndata: \(JSONWriter.string(record.json))") }
            continuation.finish()
        }
        return ConsoleEventStream.response(greeting: "following requests", events: events) { rendering.cancel() }
    }

    /// `GET /console/traffic`: `{listeners: [{namespace, path, query, unindexed, listeners}],
    /// denials: [{product, path, count}]}`.
    func traffic(_ request: Request, visitor: Visitor) async -> Response {
        if case .signedOut = visitor { return ConsoleResponses.error("SIGN_IN_REQUIRED", status: .unauthorized) }
        guard request.method == .get else { return ConsoleResponses.error("METHOD_NOT_ALLOWED", status: .methodNotAllowed) }
        return ConsoleResponses.json(await trafficSource())
    }
}
