/// How a write reached the database, as the write log records it beside its author (the
/// console's History view shows both).
///
/// The current transport is a task-local, as swift-distributed-tracing carries a request's
/// context: each transport sets it around the requests it serves and the engine reads it when
/// it applies a write, so that no entry point of the engine takes a parameter for it. A write
/// made outside every transport (an embedding program, a test) is `server`.
package enum WriteTransport: String, Sendable {
    /// The REST API (`PUT`/`PATCH`/`POST`/`DELETE …json`), the Admin SDKs among its clients.
    case rest
    /// A realtime connection: WebSocket or long-polling.
    case realtime
    /// An onDisconnect operation, run when its realtime connection ended.
    case onDisconnect = "on-disconnect"
    /// The console, for a signed-in administrator.
    case console
    /// The server's own code.
    case server

    /// The transport of the request the current task serves.
    @TaskLocal package static var current: WriteTransport = .server
}
