import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// A Server-Sent Events response of the console: `events` written as they come, and a comment
/// every ``keepAlive`` while none do — writing is how a stream whose browser has gone finds
/// out, and ends, even when nothing happens.
struct ConsoleEventStream: Sendable {
    /// How often an idle stream sends a comment.
    static let keepAlive: Duration = .seconds(15)

    /// Streams each event (`event: …\ndata: …`, without the blank line that ends it) after
    /// `greeting`, a comment; `stop` runs however the stream ends, or if it is never written.
    static func response(greeting: String, events: AsyncStream<String>, stop: @escaping @Sendable () -> Void) -> Response {
        var headers = ConsoleResponses.securityHeaders()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        // `nil` is the heartbeat's turn.
        let (frames, continuation) = AsyncStream.makeStream(of: String?.self, bufferingPolicy: .bufferingNewest(1024))
        let forwarding = Task {
            for await event in events { continuation.yield(event) }
            continuation.finish()
        }
        let heartbeat = Task {
            while (try? await Task.sleep(for: keepAlive)) != nil { continuation.yield(nil) }
        }
        continuation.onTermination = { _ in
            forwarding.cancel()
            heartbeat.cancel()
            stop()
        }
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": \(greeting)\n\n"))
            try await withGracefulShutdownHandler {
                for await frame in frames {
                    try await writer.write(ByteBuffer(string: (frame ?? ": keep-alive") + "\n\n"))
                }
            } onGracefulShutdown: {
                continuation.finish()
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
