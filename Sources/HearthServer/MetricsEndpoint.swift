import HearthCore
import HearthEdge
import Hummingbird
import NIOCore
import Prometheus

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET /metrics`: the server's traffic figures in Prometheus's text format, for operators and
/// the console's traffic view. In production only an admin credential may read them (the
/// figures tell an outsider how busy the server is); in development they are open, as the rest
/// of the server is.
struct MetricsEndpoint: Sendable {
    static let path = "/metrics"

    let registry: PrometheusCollectorRegistry
    let credentials: any CredentialVerifying
    let requiresAdmin: Bool

    func respond(to request: Request) async -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.error("Method not allowed: use GET.", status: .methodNotAllowed, headers: [.allow: "GET, HEAD"])
        }
        if requiresAdmin {
            let now = Int64(Date().timeIntervalSince1970)
            guard let token = AuthorizationHeader.token(in: request.headers), await credentials.isAdmin(token, now: now)
            else {
                return Self.error(
                    "Permission denied: /metrics needs an admin credential.", status: .unauthorized,
                    headers: [.wwwAuthenticate: "Bearer"])
            }
        }
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private static func error(_ text: String, status: HTTPResponse.Status, headers: HTTPFields) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        let body = JSONWriter.string(.object([JSONMember(key: "error", value: .string(text))]))
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
