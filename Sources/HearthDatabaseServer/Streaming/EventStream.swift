import HearthCore
import HearthEdge
import Hummingbird
import ServiceLifecycle

/// Serves `GET <path>.json` with `Accept: text/event-stream` (protocol §12): a first `put` of the
/// whole location, then a `put` or `patch` for every change, and `keep-alive` while idle; and
/// `auth_revoked` when the stream's credential expires or is revoked.
package struct EventStream {
    /// How long a stream may stay silent before a `keep-alive` event.
    var keepAliveInterval: Duration
    /// How many bytes of events may wait for a slow client before it is disconnected.
    var bufferLimit: Int

    package init(keepAliveInterval: Duration, bufferLimit: Int) {
        self.keepAliveInterval = keepAliveInterval
        self.bufferLimit = bufferLimit
    }

    func response(
        engine: NamespaceEngine, location: DatabasePath, query: QueryParams?, rendering: JSONRendering, caller: Caller,
        lapse: (@Sendable () async -> Bool)?, context: HearthRequestContext
    ) async throws(DatabaseError) -> Response {
        let channel = context.channel
        let logger = context.logger
        let sink = StreamSink(limit: bufferLimit) {
            logger.notice("closing an event stream whose client stopped reading", metadata: ["location": "\(logSafe: location)"])
            channel.close(promise: nil)
        }
        // The first put is the first event the sink receives; every change follows it.
        let id = try await engine.addListener(
            at: location, query: query ?? .all, format: SSEFormat(rendering: rendering), sink: sink, as: caller
        ).id
        let keepAliveInterval = keepAliveInterval
        let body = ResponseBody { writer in
            // The namespace closed under the stream (its store lost): the client reconnects to it.
            let closeHandler = engine.whenClosed { sink.close() }
            defer { closeHandler.map(engine.forgetCloseHandler) }
            if closeHandler == nil { sink.close() }
            do {
                try await withGracefulShutdownHandler {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        if let lapse {
                            group.addTask {
                                if await lapse() { sink.end(with: SSEFormat.authRevoked) }
                            }
                        }
                        group.addTask {
                            while true {
                                try await Task.sleep(for: keepAliveInterval)
                                guard sink.send(SSEFormat.keepAlive) else { return }
                            }
                        }
                        for await event in sink.events {
                            try await writer.write(event)
                            sink.consumed()
                        }
                        group.cancelAll()
                    }
                } onGracefulShutdown: {
                    sink.close()
                }
                await engine.removeListener(id)
                try await writer.finish(nil)
            } catch {
                await engine.removeListener(id)
                throw error
            }
        }
        var headers = RESTResponse.headers(contentType: "text/event-stream")
        headers[.connection] = "keep-alive"
        return Response(status: .ok, headers: headers, body: body)
    }
}
