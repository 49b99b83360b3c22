import HearthCore

/// One message a client sent, parsed (protocol §3.2, §4.1).
enum RealtimeInbound: Equatable {
    /// A control message: `p` (ping) matters; `a` and `n` belong to the long-poll upgrade.
    case control(type: String)
    /// A data message: request number `r`, action `a` and body `b`.
    case request(number: Int64, action: String, body: JSONValue)

    /// Parses a message, or explains why it is not one.
    static func parse(_ bytes: [UInt8]) throws(RealtimeProtocolError) -> RealtimeInbound {
        let envelope: JSONValue
        do {
            envelope = try JSONParser.parse(bytes)
        } catch {
            throw .malformed("invalid JSON: \(error.description)")
        }
        guard case .object = envelope else { throw .malformed("not a JSON object") }
        guard case .string(let layer)? = envelope["t"], let payload = envelope["d"] else {
            throw .malformed("missing \"t\" or \"d\"")
        }
        switch layer {
        case "c":
            guard case .string(let type)? = payload["t"] else { throw .malformed("control message without a type") }
            return .control(type: type)
        case "d":
            guard case .number(.int(let number))? = payload["r"] else {
                throw .malformed("data message without an integer \"r\"")
            }
            guard case .string(let action)? = payload["a"] else {
                throw .badRequest(number, "request without an action")
            }
            let body = payload["b"] ?? .object([])
            guard case .object = body else { throw .badRequest(number, "request body is not an object") }
            return .request(number: number, action: action, body: body)
        default:
            throw .malformed("unknown message layer \"\(layer)\"")
        }
    }

    /// The request number of a message too large to parse, read from its beginning: clients
    /// serialise `{"t":"d","d":{"r":N,…` with `r` first.
    static func requestNumber(inPrefixOf bytes: [UInt8]) -> Int64? {
        let marker = Array(#""r":"#.utf8)
        guard let start = bytes.firstRange(of: marker)?.upperBound else { return nil }
        let digits = bytes[start...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        return Int64(String(decoding: digits, as: UTF8.self))
    }
}

/// Why a client message could not be served.
enum RealtimeProtocolError: Error, Equatable {
    /// Not a realtime message at all; there is no request to answer.
    case malformed(String)
    /// A request that can be answered, with a failure.
    case badRequest(Int64, String)
}

/// The body of a request, with typed access to its members.
struct RequestBody {
    let json: JSONValue

    /// The location `p`, as clients send it (`/a/b` or `a/b`).
    func path() throws(RequestError) -> DatabasePath {
        guard case .string(let text)? = json["p"] else { throw .invalid("request without a path") }
        do {
            return try DatabasePath(text)
        } catch {
            throw .invalidPath
        }
    }

    /// The location of a write, which may end in `.priority` (§5.7).
    func writeLocation() throws(RequestError) -> DatabasePath {
        guard case .string(let text)? = json["p"] else { throw .invalid("request without a path") }
        do {
            return try DatabasePath(writeLocation: text)
        } catch {
            throw .invalidPath
        }
    }

    /// The data `d`; a missing member counts as `null`.
    var data: JSONValue { json["d"] ?? .null }

    func string(_ key: String) -> String? {
        guard case .string(let value)? = json[key] else { return nil }
        return value
    }

    func integer(_ key: String) -> Int64? {
        guard case .number(.int(let value))? = json[key] else { return nil }
        return value
    }

    subscript(key: String) -> JSONValue? { json[key] }
}

/// Why a request was refused; each case has the status and text the client receives.
enum RequestError: Error {
    case invalidPath
    case invalid(String)
    case database(DatabaseError)

    /// The status string (§5.10): `permission_denied` when the rules refuse. Firebase's status
    /// for malformed requests is unconfirmed; Hearth uses `failed`, which clients report as a
    /// generic failure.
    var status: String {
        if case .database(.permissionDenied) = self { return "permission_denied" }
        return "failed"
    }

    var message: String {
        switch self {
        case .invalidPath: DatabaseError.invalidPath.message
        case .invalid(let text): text
        case .database(let error): error.message
        }
    }
}
