import Crypto
import HTTPTypes
import HearthCore
import HearthEdge
import Hummingbird
import NIOCore
import ServiceLifecycle

/// What a namespace's owner serves its relays (``OwnerLink``), on the port clients use:
/// `GET /.hearth/relay/follow?ns=…`, the namespace's durable tree and then every durable batch,
/// one line each (``RelayWire``), with a keep-alive line each second; `POST
/// /.hearth/relay/writes?ns=…`, writes made by the relay's clients, applied in order for whom
/// each names, and answered once durable. And to any node: `POST /.hearth/relay/end-session?s=…`
/// ends a realtime session a client left for another node (``RealtimeSessions``).
///
/// Every request must carry the cluster's relay secret (``OwnerLink/secretHeader``); any other
/// is refused with `403` before anything is read. A node that does not own the namespace
/// answers `503`: the relay drops its replica and asks PostgreSQL anew.
package struct RelayEndpoint: Sendable {
    static let followPath = "/.hearth/relay/follow"
    static let writesPath = "/.hearth/relay/writes"
    static let endSessionPath = "/.hearth/relay/end-session"
    /// The largest body of forwarded writes: a relay's batch of writes, each at most a
    /// realtime message's size.
    static let maximumBodyBytes = 256 << 20

    let database: DatabaseService
    /// The cluster's relay secret, which every request must present.
    let secret: String
    let sessions: RealtimeSessions
    let keepAliveInterval: Duration

    package init(database: DatabaseService, secret: String, realtime: RealtimeEndpoint, keepAliveInterval: Duration = .seconds(1)) {
        self.database = database
        self.secret = secret
        self.sessions = realtime.sessions
        self.keepAliveInterval = keepAliveInterval
    }

    /// Whether `path` is one of this endpoint's.
    package static func claims(_ path: String) -> Bool {
        path == followPath || path == writesPath || path == endSessionPath
    }

    package func respond(to request: Request) async -> Response {
        guard let presented = request.headers[HTTPField.Name(OwnerLink.secretHeader)!],
            SHA256.hash(data: Array(presented.utf8)) == SHA256.hash(data: Array(secret.utf8))
        else { return Self.plain(.forbidden, "This endpoint is for the nodes of the cluster.") }
        if request.uri.path == Self.endSessionPath {
            guard request.method == .post, let session = request.uri.queryParameters["s"] else {
                return Self.plain(.badRequest, "s is missing.")
            }
            sessions.end(String(session))
            return Self.plain(.ok, "")
        }
        guard let namespace = request.uri.queryParameters["ns"].map(String.init) else {
            return Self.plain(.badRequest, "ns is missing.")
        }
        let engine: NamespaceEngine
        do {
            engine = try await database.namespace(namespace, for: .signedOut, writes: false)
        } catch {
            return Self.plain(.serviceUnavailable, "This node does not serve the namespace.")
        }
        switch (request.method, request.uri.path) {
        case (.get, Self.followPath): return follow(engine)
        case (.post, Self.writesPath): return await apply(request, on: engine)
        default: return Self.plain(.methodNotAllowed, "Method not allowed.")
        }
    }

    private func follow(_ engine: NamespaceEngine) -> Response {
        let keepAliveInterval = keepAliveInterval
        return Response(
            status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                let (messages, follower) = AsyncStream.makeStream(
                    of: ReplicationMessage.self, bufferingPolicy: .bufferingOldest(Replication.followerBuffer))
                await engine.followReplication(follower)
                let ticks = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: keepAliveInterval)
                        follower.yield(.keepAlive)
                    }
                }
                defer { ticks.cancel() }
                try await withGracefulShutdownHandler {
                    for await message in messages {
                        if case .snapshot = message {
                            try await Self.write(message, to: &writer, keepingAliveEvery: keepAliveInterval)
                        } else {
                            try await writer.write(RelayWire.line(message))
                        }
                    }
                } onGracefulShutdown: {
                    follower.finish()
                }
                try await writer.finish(nil)
            })
    }

    /// Writes `message` (a snapshot, which takes a while to make for a large namespace), with an
    /// empty line every `interval` until it is made, so that the relay knows the owner alive.
    private static func write(
        _ message: ReplicationMessage, to writer: inout some ResponseBodyWriter, keepingAliveEvery interval: Duration
    ) async throws {
        let making = Task { RelayWire.line(message) }
        while true {
            let made = await withTaskGroup(of: ByteBuffer?.self) { group in
                group.addTask { await making.value }
                group.addTask {
                    try? await Task.sleep(for: interval)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let made else {
                try await writer.write(RelayWire.line(.keepAlive))
                continue
            }
            try await writer.write(made)
            return
        }
    }

    private func apply(_ request: Request, on engine: NamespaceEngine) async -> Response {
        var request = request
        let writes: [ForwardedWrite]
        do {
            let body = try await request.collectBody(upTo: Self.maximumBodyBytes)
            guard case .array(let items)? = try JSONParser.parse(Array(body.readableBytesView))["writes"] else {
                return Self.plain(.badRequest, "writes is missing.")
            }
            writes = try items.map { item throws(RelayWire.Malformed) in try ForwardedWrite(item) }
        } catch {
            return Self.plain(.badRequest, "The writes could not be read: \(error)")
        }
        var answers: [AsyncStream<ForwardedWrite.Outcome>] = []
        for write in writes {
            let (answer, continuation) = AsyncStream.makeStream(of: ForwardedWrite.Outcome.self)
            answers.append(answer)
            let respond: @Sendable (ForwardedWrite.Outcome) -> Void = { outcome in
                continuation.yield(outcome)
                continuation.finish()
            }
            await WriteTransport.$current.withValue(write.transport) {
                do throws(DatabaseError) {
                    switch write.operation {
                    case .set(let path, let value, let precondition):
                        try await engine.set(path, value, ifMatch: precondition, as: write.caller) { result in
                            switch result {
                            case .success(.written): respond(.written)
                            case .success(.preconditionFailed): respond(.preconditionFailed)
                            case .failure(let error): respond(.refused(error))
                            }
                        }
                    case .update(let path, let entries):
                        try await engine.update(path, entries, as: write.caller) { error in
                            respond(error.map { .refused($0) } ?? .written)
                        }
                    case .apply(let queued):
                        try await engine.apply(queued, as: write.caller)
                        respond(.written)
                    }
                } catch {
                    respond(.refused(error))
                }
            }
        }
        var outcomes: [ForwardedWrite.Outcome] = []
        for answer in answers {
            for await outcome in answer { outcomes.append(outcome) }
        }
        let sequence = await engine.durableSequence
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: RelayWire.answer(sequence: sequence, outcomes: outcomes)))
    }

    private static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
