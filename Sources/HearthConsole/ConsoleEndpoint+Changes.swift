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
    /// How often an idle change stream sends a comment.
    static let changesKeepAlive: Duration = .seconds(15)

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
        var headers = ConsoleResponses.securityHeaders()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        // The changes, and an empty batch every keep-alive interval: writing it is how a stream
        // whose browser has gone finds out, and ends, even when nothing changes.
        let (events, continuation) = AsyncStream.makeStream(of: [String].self, bufferingPolicy: .bufferingNewest(256))
        let forwarding = Task {
            for await paths in following.changes { continuation.yield(paths) }
            continuation.finish()
        }
        let heartbeat = Task {
            while (try? await Task.sleep(for: Self.changesKeepAlive)) != nil { continuation.yield([]) }
        }
        // Whether the stream ends, fails or is never written at all, following stops with it.
        continuation.onTermination = { _ in
            forwarding.cancel()
            heartbeat.cancel()
            following.stop()
        }
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": following \(namespace)\n\n"))
            try await withGracefulShutdownHandler {
                for await paths in events {
                    guard !paths.isEmpty else {
                        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                        continue
                    }
                    let data = JSONWriter.string(.array(paths.map { .string($0) }))
                    try await writer.write(ByteBuffer(string: "event: changed\ndata: \(data)\n\n"))
                }
            } onGracefulShutdown: {
                continuation.finish()
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
