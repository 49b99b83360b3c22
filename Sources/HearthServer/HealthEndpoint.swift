import HearthCore
import Hummingbird
import Logging
import NIOCore

/// `GET /healthz` and `GET /readyz` on the main port, for load balancers and orchestrators; open
/// to anyone, as their probes carry no credential, and saying nothing but which product fails.
///
/// - `/healthz`: the process is alive and its port answers (200 `{"status":"ok"}`).
/// - `/readyz`: also, every product's store is open and answers: the database's durable log has
///   not failed, and the accounts' and Storage's SQLite stores run a statement. 503
///   `{"status":"unavailable","failing":["database"]}` names those that fail; the reason is
///   logged, not answered.
struct HealthEndpoint: Sendable {
    static let livenessPath = "/healthz"
    static let readinessPath = "/readyz"

    /// One product's check: why it cannot serve now, or `nil`.
    struct Check: Sendable {
        let product: String
        let unavailability: @Sendable () async -> String?
    }

    let checks: [Check]
    let logger: Logger

    static func claims(_ path: String) -> Bool {
        path == livenessPath || path == readinessPath
    }

    func respond(to request: Request) async -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.answer(.methodNotAllowed, [JSONMember(key: "error", value: .string("Method not allowed: use GET."))])
        }
        guard request.uri.path == Self.readinessPath else { return Self.answer(.ok, [Self.status("ok")]) }
        var failing: [String] = []
        for check in checks {
            guard let reason = await check.unavailability() else { continue }
            failing.append(check.product)
            logger.warning("not ready", metadata: ["product": "\(check.product)", "reason": "\(reason)"])
        }
        guard !failing.isEmpty else { return Self.answer(.ok, [Self.status("ok")]) }
        return Self.answer(
            .serviceUnavailable, [Self.status("unavailable"), JSONMember(key: "failing", value: .array(failing.map { .string($0) }))])
    }

    private static func status(_ text: String) -> JSONMember {
        JSONMember(key: "status", value: .string(text))
    }

    private static func answer(_ status: HTTPResponse.Status, _ members: [JSONMember]) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if status == .methodNotAllowed { headers[.allow] = "GET, HEAD" }
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: JSONWriter.string(.object(members)))))
    }
}
