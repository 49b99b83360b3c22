import HTTPTypes
import HearthCore
import Hummingbird
import NIOCore

/// The console's own answers: JSON bodies, its errors, and the headers every page and script
/// leaves with.
enum ConsoleResponses {
    /// Scripts and styles only from the console itself, no inline code, no plugins, frames only
    /// of the console's own (the sandboxed email previews);
    /// requests only to the console's origin, and to `mainOrigin` when given (the page fetches
    /// stored files from there to preview them as `blob:` URLs, never as documents).
    static func contentSecurityPolicy(mainOrigin: String? = nil) -> String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
            + "connect-src 'self'\(mainOrigin.map { " " + $0 } ?? ""); font-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; "
            + "frame-ancestors 'none'"
    }

    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let crossOriginOpenerPolicy = HTTPField.Name("Cross-Origin-Opener-Policy")!
    /// The header every change must carry, holding the session's CSRF token.
    static let csrfHeader = HTTPField.Name("X-Hearth-CSRF")!

    /// The security headers of every console answer.
    static func securityHeaders(mainOrigin: String? = nil) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentSecurityPolicy] = contentSecurityPolicy(mainOrigin: mainOrigin)
        headers[.crossOriginResourcePolicy] = "same-origin"
        headers[xFrameOptions] = "DENY"
        headers[referrerPolicy] = "no-referrer"
        headers[crossOriginOpenerPolicy] = "same-origin"
        return headers
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        var headers = securityHeaders()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: JSONWriter.string(value))))
    }

    /// `{"error": code}` with `status`.
    static func error(_ code: String, status: HTTPResponse.Status, extra headers: HTTPFields = [:]) -> Response {
        var response = json(.object([JSONMember(key: "error", value: .string(code))]), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}
