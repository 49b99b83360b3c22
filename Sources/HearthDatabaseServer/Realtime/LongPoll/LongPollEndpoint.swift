import HTTPTypes
import HearthEdge
import Hummingbird
import NIOCore
import ServiceLifecycle

/// Serves `/.lp`, the long-polling transport browsers fall back to (protocol §3.9). Every
/// answer is a script the client loads in a hidden frame, calling the page's callbacks:
///
/// - `?start=t&cb=<n>&ns=…[&ls=…]` opens a session: `pLPCommand<n>('start', id, pw)`, then the
///   handshake as packet 0;
/// - `?id=…&pw=…&ser=…[&seg<i>=…&ts<i>=…&d<i>=…]` is a poll: it delivers the client's message
///   segments and is answered with the next packet, held until there is one;
/// - `?dframe=t&id=…&pw=…` is the disconnect frame: a page that, when the client removes its
///   frame (or the browser leaves the page), requests `?disconn=t&id=…&pw=…`, which ends the
///   session unless it was upgraded to a WebSocket. The page finishes loading: a frame held
///   open would take one of the six connections a browser allows per host.
package struct LongPollEndpoint: Sendable {
    /// The WebSocket endpoint, whose settings, session registry and long-poll sessions this
    /// endpoint shares (a WebSocket may upgrade a long-poll session).
    let realtime: RealtimeEndpoint
    /// How long a client may go without a poll open before its session ends.
    let timeout: Duration

    package init(realtime: RealtimeEndpoint, timeout: Duration) {
        self.realtime = realtime
        self.timeout = timeout
    }

    /// The path of every long-polling request.
    package static let path = "/.lp"

    /// How long a poll is held when there is nothing to send; clients poll again after 25 s.
    static let pollHold: Duration = .seconds(20)

    package func respond(to request: Request) async -> Response {
        let parameters = QueryString.parameters(request.uri.query ?? "")
        if parameters["start"] != nil {
            return await start(parameters, host: request.head.authority ?? realtime.fallbackHost)
        }
        guard let id = parameters["id"], let session = realtime.longPolls[id], parameters["pw"] == session.password else {
            return await passedOn(request, namespace: Self.namespace(in: parameters, default: realtime.defaultNamespace))
        }
        guard let segments = Self.segments(in: parameters) else { return Self.script("", status: .badRequest) }
        do {
            try session.received(segments)
        } catch {
            return Self.script("", status: .badRequest)
        }
        if parameters["dframe"] != nil { return Self.disconnectFrame }
        if parameters["disconn"] != nil {
            session.longPollingEnded()
            return Self.script("")
        }
        // A held poll must not keep the server from stopping: shutting down ends the session,
        // which answers it with the close command.
        let script = await withGracefulShutdownHandler {
            await session.outbox.poll(serial: parameters["ser"].flatMap { Int($0) }, hold: Self.pollHold)
        } onGracefulShutdown: {
            session.end()
        }
        session.pollAnswered()
        return Self.script(script)
    }

    private func start(_ parameters: [String: String], host: String) async -> Response {
        guard let callback = parameters["cb"], (1...16).contains(callback.utf8.count),
            callback.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { return Self.script("", status: .badRequest) }
        if let previous = parameters["ls"], !previous.isEmpty { realtime.sessions.end(previous) }
        let namespace = Self.namespace(in: parameters, default: realtime.defaultNamespace)
        let session = LongPollSession(
            id: realtime.sessions.makeSessionID(), password: RealtimeSessions.makeID(), callback: callback,
            outboxLimit: realtime.outboxLimit, timeout: timeout)
        let command = "parent.pLPCommand\(callback)('start','\(session.id)','\(session.password)');"
        let engine: NamespaceEngine
        do {
            engine = try await realtime.database.namespace(namespace, for: .signedOut, writes: false)
        } catch {
            session.outbox.send(RealtimeMessages.refusal(error))
            session.outbox.close()
            return Self.script(command + (await session.outbox.poll(serial: nil, hold: .zero)))
        }
        realtime.longPolls.add(session)
        realtime.sessions.register(session.id) { session.end() }
        session.outbox.send(RealtimeMessages.handshake(timestamp: NamespaceEngine.now(), host: host, sessionID: session.id))
        let realtime = realtime
        // The namespace closed under the session (its store lost): the client reconnects.
        let closeHandler = engine.whenClosed { session.end() }
        if closeHandler == nil { session.end() }
        Task {
            defer { closeHandler.map(engine.forgetCloseHandler) }
            var ended = await session.serve(
                with: RealtimeSession(
                    engine: engine, writer: engine, outbox: session.outbox, credentials: realtime.credentials, activity: realtime.activity,
                    wake: { [weak session] in session?.deliver($0) }, logger: realtime.logger))
            // Gone before its onDisconnect writes show: a poll that sees them finds no session.
            realtime.longPolls.remove(session)
            realtime.sessions.remove(session.id)
            await ended.disconnect { try await realtime.database.onDisconnectWriter(namespace) }
        }
        return Self.script(command + (await session.outbox.poll(serial: nil, hold: .zero)))
    }

    /// The namespace a request names (`ns`), or the server's default.
    private static func namespace(in parameters: [String: String], default defaultNamespace: String) -> String {
        parameters["ns"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultNamespace
    }

    /// The answer to a poll of a session this node does not hold. In a cluster a session lives on
    /// its namespace's owner (another node answers a start with the reset), and a load balancer
    /// may send each poll to any node: the poll is passed on to the owner, as REST requests are.
    /// Else, or when the owner does not answer, `404`, after which the client starts anew.
    private func passedOn(_ request: Request, namespace: String) async -> Response {
        guard !OwnerForwarding.isForwarded(request) else { return Self.script("", status: .notFound) }
        do {
            _ = try await realtime.database.namespace(namespace, for: .signedOut, writes: false)
        } catch DatabaseError.servedElsewhere(let address) {
            if let answer = try? await OwnerForwarding.forward(request, to: address, maximumBodyBytes: 0) { return answer }
            realtime.database.ownerUnreachable(namespace)
        } catch {}
        return Self.script("", status: .notFound)
    }

    /// The disconnect frame's page. It finishes loading at once; when it is unloaded (the client
    /// removed its frame, or the browser left the page) it sends its own query with `disconn` in
    /// place of `dframe`, as a beacon where the browser has them (they outlive the page), else as
    /// a synchronous request.
    private static var disconnectFrame: Response {
        var headers = RESTResponse.headers(contentType: "text/html; charset=utf-8")
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: disconnectPage)))
    }

    private static let disconnectPage = """
        <!DOCTYPE html><html><head><meta charset="utf-8"><title></title></head><body><script>
        (function () {
          var url = location.search.replace(/(^\\?|&)dframe=[^&]*/, "$1disconn=t"), sent = false;
          function leave() {
            if (sent) return;
            sent = true;
            try { if (navigator.sendBeacon && navigator.sendBeacon(url)) return; } catch (e) {}
            try { var request = new XMLHttpRequest(); request.open("GET", url, false); request.send(); } catch (e) {}
          }
          addEventListener("pagehide", leave);
          addEventListener("unload", leave);
        })();
        </script></body></html>
        """

    /// The segments `seg<i>`, `ts<i>`, `d<i>` for i = 0, 1, …; `nil` when one is malformed.
    private static func segments(in parameters: [String: String]) -> [(number: Int, count: Int, chunk: Substring)]? {
        var segments: [(number: Int, count: Int, chunk: Substring)] = []
        var index = 0
        while let number = parameters["seg\(index)"] {
            guard let number = Int(number), let count = parameters["ts\(index)"].flatMap({ Int($0) }),
                let chunk = parameters["d\(index)"]
            else { return nil }
            segments.append((number, count, Substring(chunk)))
            index += 1
        }
        return segments
    }

    private static func script(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: RESTResponse.headers(contentType: "application/javascript; charset=utf-8"),
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
