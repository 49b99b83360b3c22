import AsyncHTTPClient
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends a request for what another node of the cluster owns (a namespace, the ads service) to
/// that node, and streams its answer back: the client's method, body and headers, credentials
/// among them, reach the owner unchanged. A redirect would lose the `Authorization` header,
/// which clients drop when a redirect changes host or port.
///
/// A request forwarded once is not forwarded again: a node that is not the owner either (the
/// ownership is moving) answers `503`.
package enum OwnerForwarding {
    /// Marks a request a node forwarded.
    package static let forwardedHeader = HTTPField.Name("X-Hearth-Forwarded")!
    /// The scheme and the authority (`host:port`) the client reached the first node at, which a
    /// forwarded request carries (the owner is reached at an address of the cluster's own).
    static let clientSchemeHeader = HTTPField.Name("X-Hearth-Forwarded-Proto")!
    static let clientAuthorityHeader = HTTPField.Name("X-Hearth-Forwarded-Host")!

    /// Headers of one connection, which a proxy must not pass on (RFC 9110 §7.6.1).
    private static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
    ]

    /// How long a forwarded request other than an event stream may take: a commit's longest,
    /// and then some. An event stream has no deadline.
    package static let answerDeadline: TimeAmount = .seconds(45)

    /// Whether `error`, thrown by ``forward(_:to:maximumBodyBytes:)``, means that the request
    /// never reached the owner: no connection could be made to it. Any other failure may have
    /// come after the owner took the request in.
    package static func neverReached(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError: error == .connectTimeout
        case is NIOConnectionError: true
        case let error as IOError: [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(error.errnoCode)
        case ChannelError.connectTimeout: true
        default: false
        }
    }

    /// The scheme and the authority the client reached the cluster at: those a forwarding node
    /// recorded in `request`, else `request`'s own.
    package static func clientOrigin(of request: Request) -> (scheme: String, authority: String) {
        if isForwarded(request), let scheme = request.headers[clientSchemeHeader], let authority = request.headers[clientAuthorityHeader] {
            return (scheme, authority)
        }
        return (request.head.scheme ?? "http", request.head.authority ?? "")
    }

    /// Whether `request` was forwarded by another node.
    package static func isForwarded(_ request: Request) -> Bool {
        request.headers[forwardedHeader] != nil
    }

    /// The owner's answer to `request`, from the node at `address` (`host:port`); a body of more
    /// than `maximumBodyBytes` is refused as the owner would refuse it (`NIOTooManyBytesError`).
    package static func forward(_ request: Request, to address: String, maximumBodyBytes: Int) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: maximumBodyBytes)
        var outgoing = HTTPClientRequest(url: "\(request.head.scheme ?? "http")://\(address)\(request.uri)")
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers where !hopByHop.contains(field.name.canonicalName) {
            outgoing.headers.add(name: field.name.canonicalName, value: field.value)
        }
        outgoing.headers.add(name: forwardedHeader.canonicalName, value: "1")
        let (scheme, authority) = clientOrigin(of: request)
        outgoing.headers.replaceOrAdd(name: clientSchemeHeader.canonicalName, value: scheme)
        outgoing.headers.replaceOrAdd(name: clientAuthorityHeader.canonicalName, value: authority)
        if body.readableBytes > 0 { outgoing.body = .bytes(body) }
        let isEventStream = request.headers[.accept]?.contains("text/event-stream") == true
        let answer = try await ClusterHTTPClient.shared.execute(
            outgoing, deadline: isEventStream ? .distantFuture : .now() + answerDeadline)
        var headers = HTTPFields()
        for (name, value) in answer.headers where !hopByHop.contains(name.lowercased()) {
            guard let name = HTTPField.Name(name) else { continue }
            headers.append(HTTPField(name: name, value: value))
        }
        return Response(
            status: HTTPResponse.Status(code: Int(answer.status.code)), headers: headers,
            body: ResponseBody { writer in
                // Local event streams end when the server shuts down; these do too, at their next
                // event or keep-alive.
                let stopping = Atomic<Bool>(false)
                try await withGracefulShutdownHandler {
                    for try await chunk in answer.body {
                        try await writer.write(chunk)
                        if stopping.load(ordering: .relaxed) { break }
                    }
                } onGracefulShutdown: {
                    stopping.store(true, ordering: .relaxed)
                }
                try await writer.finish(nil)
            })
    }
}
