import HTTPTypes
import HearthCore
import HearthEdge
import Hummingbird
import NIOCore
import ServiceLifecycle

/// A namespace's change stream as the console follows it: the locations each durable batch
/// wrote (absolute paths), and how to stop following (which also lets the namespace close).
package struct ChangeFollowing: Sendable {
    package let changes: AsyncStream<[String]>
    package let stop: @Sendable () -> Void

    package init(changes: AsyncStream<[String]>, stop: @escaping @Sendable () -> Void) {
        self.changes = changes
        self.stop = stop
    }
}

/// Starts following a namespace; `nil` when it cannot be opened.
package typealias ChangeSource = @Sendable (_ namespace: String) async -> ChangeFollowing?

extension ConsoleEndpoint {
    /// `GET /console/changes?ns=<namespace>`: Server-Sent Events, one `changed` event per
    /// durable batch with the JSON array of the paths it wrote. The data view reads again only
    /// what it shows under those paths, so that even a node of 100,000 children stays live
    /// without being sent whole.
    func changes(_ request: Request, visitor: Visitor) async -> Response {
        if case .signedOut = visitor { return ConsoleResponses.error("SIGN_IN_REQUIRED", status: .unauthorized) }
        guard request.method == .get else { return ConsoleResponses.error("METHOD_NOT_ALLOWED", status: .methodNotAllowed) }
        let namespace = QueryString.parameters(request.uri.query ?? "")["ns"] ?? settings.defaultNamespace
        guard let following = await changeSource(namespace) else {
            return ConsoleResponses.error("NAMESPACE_NOT_FOUND", status: .notFound)
        }
        let (events, continuation) = AsyncStream.makeStream(of: String.self)
        let rendering = Task {
            for await paths in following.changes {
                continuation.yield("event: changed\ndata: \(JSONWriter.string(.array(paths.map { .string($0) })))")
            }
            continuation.finish()
        }
        return ConsoleEventStream.response(greeting: "following \(namespace)", events: events) {
            rendering.cancel()
            following.stop()
        }
    }
}
