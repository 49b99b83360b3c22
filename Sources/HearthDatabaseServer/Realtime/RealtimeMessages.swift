import HearthCore
import NIOCore

/// The messages a Hearth server sends over the realtime protocol (§3.5, §4.1), encoded once.
///
/// Data messages are `{"t":"d","d":{…}}`; control messages `{"t":"c","d":{"t":<type>,"d":…}}`.
enum RealtimeMessages {
    /// The handshake, the first message of every connection.
    static func handshake(timestamp: Int64, host: String, sessionID: String) -> ByteBuffer {
        control("h") { writer in
            var scope = writer.beginObject()
            writer.writeKey("ts", in: &scope)
            writer.writeRaw(String(timestamp))
            writer.writeKey("v", in: &scope)
            writer.writeString("5")
            writer.writeKey("h", in: &scope)
            writer.writeString(host)
            writer.writeKey("s", in: &scope)
            writer.writeString(sessionID)
            writer.endObject(scope)
        }
    }

    /// The answer to a client's ping.
    static let pong = control("o") { $0.writeRaw("{}") }

    /// Sent first on a WebSocket that upgrades a long-polling session: the client then checks
    /// it with pings before switching to it (§3.9).
    static let switchAck = control("a") { $0.writeRaw("{}") }

    /// The last message on a long-polling session being upgraded: everything after it comes
    /// on the WebSocket (§3.9).
    static let endTransmission = control("n") { $0.writeRaw("{}") }

    /// A server error the client logs (`e`).
    static func error(_ text: String) -> ByteBuffer {
        control("e") { $0.writeString(text) }
    }

    /// Tells the client to stop reconnecting (`s`), for conditions it cannot recover from.
    static func shutdown(_ reason: String) -> ByteBuffer {
        control("s") { $0.writeString(reason) }
    }

    /// Sends the client to the node at `host` (`host:port`), which owns its namespace (`r`): it
    /// closes this connection and opens the next one there.
    static func reset(_ host: String) -> ByteBuffer {
        control("r") { $0.writeString(host) }
    }

    /// What a connection whose namespace could not be opened gets before it closes: a reset
    /// to the node that owns the namespace, else a shutdown with the reason.
    static func refusal(_ error: any Error) -> ByteBuffer {
        switch error as? DatabaseError {
        case .servedElsewhere(let address): reset(address)
        case let error?: shutdown(error.message)
        case nil: shutdown("The database is unavailable.")
        }
    }

    private static func control(_ type: String, data: (inout JSONWriter) -> Void) -> ByteBuffer {
        var writer = JSONWriter()
        writer.writeRaw(#"{"t":"c","d":{"t":""#)
        writer.writeRaw(type)
        writer.writeRaw(#"","d":"#)
        data(&writer)
        writer.writeRaw("}}")
        return ByteBuffer(bytes: writer.bytes)
    }

    // MARK: Responses

    /// `{"s":"ok","d":""}`: a write, onDisconnect, stats or unauth request succeeded.
    static func ok(_ request: Int64) -> ByteBuffer {
        response(request, status: "ok") { $0.writeString("") }
    }

    /// A listen succeeded; `d` is always an object, with the `no_index` warning when the query
    /// had no index and the whole location is sent.
    static func listenOK(_ request: Int64, unindexed: Bool) -> ByteBuffer {
        response(request, status: "ok") { $0.writeRaw(unindexed ? #"{"w":["no_index"]}"# : "{}") }
    }

    /// A get succeeded: the data, priorities included.
    static func data(_ request: Int64, _ node: Node) -> ByteBuffer {
        response(request, status: "ok") { $0.write(node, .export) }
    }

    /// An auth request succeeded: the auth variable rules will see, and the expiry in seconds.
    static func authOK(_ request: Int64, auth: JSONValue, expires: Int64) -> ByteBuffer {
        response(request, status: "ok") { writer in
            var scope = writer.beginObject()
            writer.writeKey("auth", in: &scope)
            writer.write(auth)
            writer.writeKey("expires", in: &scope)
            writer.writeRaw(String(expires))
            writer.endObject(scope)
        }
    }

    /// A request failed; `d` is always a string, which clients show to the user.
    static func failure(_ request: Int64, status: String, message: String) -> ByteBuffer {
        response(request, status: status) { $0.writeString(message) }
    }

    private static func response(_ request: Int64, status: String, data: (inout JSONWriter) -> Void) -> ByteBuffer {
        var writer = JSONWriter()
        writer.writeRaw(#"{"t":"d","d":{"r":"#)
        writer.writeRaw(String(request))
        writer.writeRaw(#","b":{"s":"#)
        writer.writeString(status)
        writer.writeRaw(#","d":"#)
        data(&writer)
        writer.writeRaw("}}}")
        return ByteBuffer(bytes: writer.bytes)
    }

    // MARK: Pushes

    /// `sd`: why the rules denied a request, for clients whose token asks for security debugging
    /// (§6.6).
    static func securityDebug(_ text: String) -> ByteBuffer {
        var writer = JSONWriter()
        writer.writeRaw(#"{"t":"d","d":{"a":"sd","b":{"msg":"#)
        writer.writeString(text)
        writer.writeRaw("}}}")
        return ByteBuffer(bytes: writer.bytes)
    }

    /// `ac`: the connection's credential stopped being valid (§6.4); it now acts signed out.
    static func authRevoked(status: String, reason: String) -> ByteBuffer {
        var writer = JSONWriter()
        writer.writeRaw(#"{"t":"d","d":{"a":"ac","b":{"s":"#)
        writer.writeString(status)
        writer.writeRaw(#","d":"#)
        writer.writeString(reason)
        writer.writeRaw("}}}")
        return ByteBuffer(bytes: writer.bytes)
    }

    /// `c`: a listen lost read access (§6.3). `query` is the tagged query's object as received;
    /// a default listen has none.
    static func listenRevoked(path: DatabasePath, query: JSONValue?) -> ByteBuffer {
        var writer = JSONWriter()
        writer.writeRaw(#"{"t":"d","d":{"a":"c","b":{"p":"#)
        writer.writeString(path.slashless)
        if let query {
            writer.writeRaw(#","q":["#)
            writer.write(query)
            writer.writeRaw("]")
        }
        writer.writeRaw("}}}")
        return ByteBuffer(bytes: writer.bytes)
    }

    /// `event`, a push message as ``RealtimeEventFormat`` writes it (ending in `}}}`), with the
    /// tag of the query it answers added to its body.
    static func tagging(_ event: ByteBuffer, tag: Int64) -> ByteBuffer {
        var tagged = ByteBuffer()
        tagged.reserveCapacity(event.readableBytes + 24)
        tagged.writeImmutableBuffer(event.getSlice(at: event.readerIndex, length: event.readableBytes - 3)!)
        tagged.writeString(#","t":"#)
        tagged.writeString(String(tag))
        tagged.writeString("}}}")
        return tagged
    }
}

/// Encodes view changes as realtime pushes (§6.1, §6.2): `d` with the new data at a path, or
/// `m` with the changed children below a path. Paths are absolute and have no leading slash.
///
/// The encoding is the WebSocket frames of the push, ready for the socket, and carries no query
/// tag, so that every connection listening to the same location and query shares it;
/// connections with tagged queries add their tag (``RealtimeMessages/tagging(_:tag:)``).
struct RealtimeEventFormat: EventFormat {
    func encode(_ change: ViewChange, location: DatabasePath, query: QueryParams) -> ByteBuffer {
        var writer = JSONWriter()
        switch change {
        case .put(let path, let node):
            writer.writeRaw(#"{"t":"d","d":{"a":"d","b":{"p":"#)
            writer.writeString(location.appending(path).slashless)
            writer.writeRaw(#","d":"#)
            writer.write(node, .export)
        case .patch(let path, let children):
            writer.writeRaw(#"{"t":"d","d":{"a":"m","b":{"p":"#)
            writer.writeString(location.appending(path).slashless)
            writer.writeRaw(#","d":"#)
            var members = writer.beginObject()
            for child in children {
                writer.writeKey(child.path.slashless, in: &members)
                writer.write(child.node, .export)
            }
            writer.endObject(members)
        }
        writer.writeRaw("}}}")
        return WebSocketWire.encode(ByteBuffer(bytes: writer.bytes))
    }
}

/// Where one realtime listen's events go: the connection's ``Outbox``, with the listen's tag.
final class RealtimeListenSink: EventSink {
    private let outbox: any RealtimeOutbox
    private let tag: Int64?
    private let path: DatabasePath
    /// The query object as the client sent it, which a revocation must echo.
    private let query: JSONValue?

    init(outbox: any RealtimeOutbox, tag: Int64?, path: DatabasePath, query: JSONValue?) {
        self.outbox = outbox
        self.tag = tag
        self.path = path
        self.query = query
    }

    func revoke() {
        _ = outbox.send(RealtimeMessages.listenRevoked(path: path, query: tag == nil ? nil : query))
    }

    func send(_ event: ByteBuffer) -> Bool {
        guard let tag else { return outbox.send(wire: event) }
        return outbox.send(RealtimeMessages.tagging(WebSocketWire.decode(event), tag: tag))
    }
}
