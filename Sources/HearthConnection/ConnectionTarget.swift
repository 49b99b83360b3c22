import Foundation

/// Where a ``PersistentConnection`` connects: a realtime server and one of its namespaces.
public struct ConnectionTarget: Sendable, Hashable {
    /// The server's host, with an optional port: `127.0.0.1:9000`, `proj-default-rtdb.firebaseio.com`.
    public var host: String
    /// The database namespace (`ns`), for example `proj-default-rtdb`.
    public var namespace: String
    /// Whether to use TLS (`wss`).
    public var secure: Bool

    public init(host: String, namespace: String, secure: Bool) {
        self.host = host
        self.namespace = namespace
        self.secure = secure
    }

    /// The WebSocket URL of the realtime endpoint on `host` (protocol §3.1):
    /// `ws[s]://<host>/.ws?v=5&ns=<namespace>`, plus `&ls=<id>` naming the session of the
    /// previous connection so that the server can end it at once.
    func webSocketURL(host: String, lastSessionID: String?) -> String {
        var url = "\(secure ? "wss" : "ws")://\(host)/.ws?v=5&ns=\(Self.queryEncoded(namespace))"
        if let lastSessionID {
            url += "&ls=\(Self.queryEncoded(lastSessionID))"
        }
        return url
    }

    /// Namespaces and session ids are plain `[A-Za-z0-9-]` text; anything else is escaped.
    private static func queryEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
