import HearthCore

/// One request as the console's requests feed shows it: an HTTP request to any product, or one
/// message of a realtime connection.
package struct RequestRecord: Sendable {
    /// The product that answered: `database`, `auth`, `storage` or `metrics`.
    package var product: String
    /// `http`, or `realtime` for a message of a WebSocket or long-polling connection.
    package var transport: String
    /// The HTTP method, or the realtime action (`set`, `update`, `listen`, …).
    package var method: String
    /// The request's path: the URL's for HTTP, the database location for realtime messages.
    package var path: String
    /// The HTTP status, or the realtime status (`ok`, `permission_denied`, …).
    package var status: String
    /// Whether the request was refused or failed.
    package var failed: Bool
    /// When the request arrived, in milliseconds since 1970.
    package var time: Int64
    /// How long it took to answer, in microseconds.
    package var micros: Int64
    /// Whom the request acted for, as the products established it.
    package var trace: RequestTrace.Findings
    /// Whether the console sent it on an administrator's behalf.
    package var fromConsole: Bool
    /// How many requests the feed left out since the record it published before this one.
    package var leftOutBefore: Int

    /// `{product, transport, method, path, status, failed, time, micros, user, namespace?, console,
    /// denial?, leftOutBefore?}`; `user` is `admin`, a uid, or null when signed out or unknown.
    package var json: JSONValue {
        var members: [JSONMember] = [
            JSONMember(key: "product", value: .string(product)),
            JSONMember(key: "transport", value: .string(transport)),
            JSONMember(key: "method", value: .string(method)),
            JSONMember(key: "path", value: .string(path)),
            JSONMember(key: "status", value: .string(status)),
            JSONMember(key: "failed", value: .bool(failed)),
            JSONMember(key: "time", value: .number(.int(time))),
            JSONMember(key: "micros", value: .number(.int(micros))),
            JSONMember(key: "user", value: trace.user.map(JSONValue.string) ?? .null),
            JSONMember(key: "console", value: .bool(fromConsole)),
        ]
        if let namespace = trace.namespace { members.append(JSONMember(key: "namespace", value: .string(namespace))) }
        if let denial = trace.denial { members.append(JSONMember(key: "denial", value: denial)) }
        if leftOutBefore > 0 { members.append(JSONMember(key: "leftOutBefore", value: .number(.int(Int64(leftOutBefore))))) }
        return .object(members)
    }
}
