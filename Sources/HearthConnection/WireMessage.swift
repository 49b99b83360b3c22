import HearthCore

/// The request actions a client sends (protocol §5.1).
enum RequestAction: String, Sendable {
    case listen = "q"
    case unlisten = "n"
    case get = "g"
    case put = "p"
    case merge = "m"
    case onDisconnectPut = "o"
    case onDisconnectMerge = "om"
    case onDisconnectCancel = "oc"
    case auth
    case unauth
}

/// The handshake that opens every connection (protocol §3.6).
struct Handshake: Sendable, Equatable {
    /// The server's clock, in milliseconds since 1970.
    var timestamp: Int64
    /// The host (with port) to use for later connections, when the server names one.
    var host: String?
    /// The session id, sent back as `ls` when reconnecting.
    var sessionID: String?
}

/// One whole message from the server, decoded from its envelope (protocol §3.2, §3.5, §4.1).
enum ServerMessage: Sendable, Equatable {
    /// Control `h`: the connection is ready.
    case handshake(Handshake)
    /// Control `r`: reconnect to another host.
    case redirect(host: String)
    /// Control `s`: the server wants the client to stop reconnecting.
    case shutdown(reason: String)
    /// Control `e`: a server error to log.
    case serverError(String)
    /// A control message the client has no use for (`o` pong, and unknown types).
    case ignoredControl(type: String)
    /// The answer to request `request`: its status and data (`b.s`, `b.d`).
    case response(request: Int, status: String, data: JSONValue)
    /// A push (`d`, `m`, `c`, `ac`, `sd`, …) with its body.
    case push(action: String, body: JSONValue)

    /// Decodes a reassembled message.
    static func decode(_ text: String) throws(WireMessageError) -> ServerMessage {
        let envelope: JSONValue
        do {
            envelope = try JSONParser.parse(text)
        } catch {
            throw .malformedJSON(error.description)
        }
        guard case .string(let layer)? = envelope["t"], let payload = envelope["d"] else {
            throw .unexpectedShape("no \"t\" and \"d\" envelope")
        }
        switch layer {
        case "c": return try control(payload)
        case "d": return try data(payload)
        default: throw .unexpectedShape("unknown layer \"\(layer)\"")
        }
    }

    private static func control(_ payload: JSONValue) throws(WireMessageError) -> ServerMessage {
        guard case .string(let type)? = payload["t"] else { throw .unexpectedShape("control message without type") }
        let data = payload["d"]
        switch type {
        case "h":
            guard case .number(.int(let timestamp))? = data?["ts"] else {
                throw .unexpectedShape("handshake without integer \"ts\"")
            }
            return .handshake(Handshake(timestamp: timestamp, host: data?["h"]?.stringValue, sessionID: data?["s"]?.stringValue))
        case "r":
            guard let host = data?.stringValue, !host.isEmpty else { throw .unexpectedShape("redirect without host") }
            return .redirect(host: host)
        case "s":
            return .shutdown(reason: data?.stringValue ?? "")
        case "e":
            return .serverError(data?.stringValue ?? "")
        default:
            return .ignoredControl(type: type)
        }
    }

    private static func data(_ payload: JSONValue) throws(WireMessageError) -> ServerMessage {
        let body = payload["b"] ?? .null
        if let number = payload["r"] {
            guard case .number(.int(let request)) = number, let request = Int(exactly: request) else {
                throw .unexpectedShape("request number is not an integer")
            }
            guard case .string(let status)? = body["s"] else { throw .unexpectedShape("response without status") }
            return .response(request: request, status: status, data: body["d"] ?? .null)
        }
        guard case .string(let action)? = payload["a"] else { throw .unexpectedShape("data message without action") }
        return .push(action: action, body: body)
    }
}

/// Why a server message could not be decoded.
enum WireMessageError: Error, Sendable, Equatable {
    /// The text is not JSON.
    case malformedJSON(String)
    /// The JSON is not a message of the protocol.
    case unexpectedShape(String)
}

/// The texts a client sends.
enum ClientMessage {
    /// The keepalive frame (protocol §3.4): neither a message nor a frame count.
    static let keepalive = "0"

    /// `{"t":"d","d":{"r":<number>,"a":<action>,"b":<body>}}`.
    static func request(number: Int, action: RequestAction, body: JSONValue) -> String {
        let request = JSONValue.members([
            ("r", .number(.int(Int64(number)))),
            ("a", .string(action.rawValue)),
            ("b", body),
        ])
        return JSONWriter.string(.members([("t", .string("d")), ("d", request)]))
    }
}

extension JSONValue {
    /// An object of `members` in order, leaving out those whose value is `nil`.
    static func members(_ members: [(String, JSONValue?)]) -> JSONValue {
        .object(members.compactMap { key, value in value.map { JSONMember(key: key, value: $0) } })
    }

    /// The string, if this is one.
    var stringValue: String? {
        guard case .string(let string) = self else { return nil }
        return string
    }
}
