import Foundation
import HearthConnection

/// A database URL taken apart: `https://<ns>.firebaseio.com`, a regional
/// `https://<ns>.<region>.firebasedatabase.app`, or a local server such as
/// `http://127.0.0.1:9000?ns=<ns>`.
struct DatabaseURL: Hashable {
    var target: ConnectionTarget

    init?(_ string: String) {
        guard let components = URLComponents(string: string), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return nil }
        let namespace =
            components.queryItems?.first(where: { $0.name == "ns" })?.value
            ?? String(host.split(separator: ".").first ?? Substring(host))
        let hostWithPort = components.port.map { "\(host):\($0)" } ?? host
        target = ConnectionTarget(host: hostWithPort, namespace: namespace, secure: scheme == "https")
    }

    /// The URL of the location `path` ("/a/b"), as `DatabaseReference.url` gives it: hosts other
    /// than Firebase's own name the namespace in the query.
    func url(of path: String) -> String {
        let scheme = target.secure ? "https" : "http"
        let location = path == "/" ? "" : path
        let isFirebaseHost = target.host.hasSuffix(".firebaseio.com") || target.host.hasSuffix(".firebasedatabase.app")
        return "\(scheme)://\(target.host)\(location)" + (isFirebaseHost ? "" : "?ns=\(target.namespace)")
    }
}
