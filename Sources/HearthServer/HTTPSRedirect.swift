import HTTPTypes
import HearthEdge
import Hummingbird
import Logging
import NIOCore

/// A plain-HTTP port that sends every request to the same path on the HTTPS port
/// (`--http-redirect-port`): 308 Permanent Redirect, which browsers and clients follow keeping the
/// method and body. The host is the one the request named, its port replaced; a request whose
/// `Host` is not a plain host name or address is refused (400), so that the port redirects
/// nowhere else. The one exception is an ACME HTTP-01 validation under way: its token's path is
/// answered with the key authorization.
struct HTTPSRedirect: Sendable {
    /// The HTTPS port requests are sent to.
    let httpsPort: Int
    /// The HTTP-01 validations under way.
    let challenges: ACMEChallengeResponses

    /// Where HTTP-01 validations read their tokens (RFC 8555 §8.3).
    static let challengePrefix = "/.well-known/acme-challenge/"

    func respond(to request: Request) -> Response {
        if request.method == .get, request.uri.query == nil, request.uri.path.hasPrefix(Self.challengePrefix),
            let answer = challenges.keyAuthorization(forToken: String(request.uri.path.dropFirst(Self.challengePrefix.count)))
        {
            return Response(
                status: .ok, headers: [.contentType: "application/octet-stream", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: answer)))
        }
        guard let host = request.head.authority.flatMap(Self.hostName) else {
            return Response(
                status: .badRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "Missing or invalid Host header.\n")))
        }
        let port = httpsPort == 443 ? "" : ":\(httpsPort)"
        return Response(
            status: .permanentRedirect,
            headers: [.location: "https://\(host)\(port)\(request.uri.description)", .cacheControl: "no-store"])
    }

    /// The host name of `authority` (`host` or `host:port`, `[v6]` or `[v6]:port`), if it is one.
    static func hostName(_ authority: String) -> String? {
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return nil }
            host = host[...end]
            return host.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } ? String(host) : nil
        }
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        let plain =
            !host.isEmpty && host.count <= 253 && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
        return plain ? String(host) : nil
    }
}

extension HearthServer {
    /// The redirect port's application.
    func makeRedirectApplication(
        port: Int, challenges: ACMEChallengeResponses, onListening: @escaping @Sendable () -> Void
    ) -> some ApplicationProtocol {
        let redirect = HTTPSRedirect(httpsPort: configuration.port, challenges: challenges)
        return Application(
            responder: CallbackResponder { (request, _: HearthRequestContext) in redirect.respond(to: request) },
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: guards.http1Handlers(), idleTimeout: TimeAmount(configuration.httpIdleTimeout))),
            configuration: .init(address: .hostname(configuration.host, port: port), serverName: "Hearth"),
            onServerRunning: { [logger, host = configuration.host] channel in
                onListening()
                logger.notice("Redirecting http://\(host):\(channel.localAddress?.port ?? port) to HTTPS")
            },
            logger: logger)
    }
}
