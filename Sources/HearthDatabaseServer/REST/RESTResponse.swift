import HTTPTypes
import HearthCore
import HearthEdge
import Hummingbird

/// Builds responses the way the Firebase REST API sends them.
enum RESTResponse {
    /// Any origin may call; a preflight gets the methods and headers Firebase clients use.
    static let crossOrigin = CrossOriginPolicy(
        allowedOrigin: .any, methods: "GET, PUT, POST, PATCH, DELETE, OPTIONS",
        defaultHeaders: "Authorization, Content-Type, X-Firebase-ETag, If-Match, If-None-Match, X-HTTP-Method-Override",
        preflightStatus: .ok)

    /// Headers every database response carries (any origin may read it, as ``crossOrigin`` says).
    static func headers(contentType: String = "application/json; charset=utf-8") -> HTTPFields {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        fields[.cacheControl] = "no-cache"
        fields[.accessControlAllowOrigin] = "*"
        return fields
    }

    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, extraHeaders: HTTPFields = [:]) -> Response {
        var fields = headers()
        fields.append(contentsOf: extraHeaders)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `{"error" : "<message>"}`, pretty-printed with a final newline, as Firebase sends errors.
    static func error(_ error: RESTError) -> Response {
        var writer = JSONWriter(pretty: true)
        writer.writeObject(key: "error", string: error.message)
        writer.writeRaw("\n")
        return json(writer.bytes, status: error.status)
    }

    /// 204 with no body, for `print=silent`.
    static func noContent(extraHeaders: HTTPFields = [:]) -> Response {
        var fields = headers()
        fields.append(contentsOf: extraHeaders)
        return Response(status: .noContent, headers: fields)
    }
}

extension HTTPField.Name {
    static let firebaseETag = HTTPField.Name("X-Firebase-ETag")!
    static let methodOverride = HTTPField.Name("X-HTTP-Method-Override")!
}
