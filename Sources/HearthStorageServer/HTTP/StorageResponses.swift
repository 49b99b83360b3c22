import HTTPTypes
import HearthCore
import HearthEdge
import Hummingbird
import NIOCore

/// Responses of the Storage endpoints: JSON, errors in GCS's shape (spec storage-api §8.1), and
/// the CORS headers browsers need to read upload responses (§1.4).
enum StorageResponses {
    /// Upload headers a browser script must be able to read.
    static let exposedHeaders = [
        "content-type", "x-firebase-storage-version", "X-Goog-Upload-Size-Received", "x-goog-upload-url",
        "x-goog-upload-command", "x-gupload-uploadid", "x-goog-upload-header-content-length",
        "x-goog-upload-header-content-type", "x-goog-upload-protocol", "x-goog-upload-status",
        "x-goog-upload-chunk-granularity", "x-goog-upload-control-url",
    ].joined(separator: ", ")

    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func text(_ text: String, status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `{"error":{"code":…,"message":…}}`; the GCS API adds an `errors` array with a reason.
    static func error(_ error: StorageError, cloud: Bool) -> Response {
        var headers = HTTPFields()
        if let status = error.uploadStatus { headers[.googUploadStatus] = status }
        var writer = JSONWriter()
        var outer = writer.beginObject()
        writer.writeKey("error", in: &outer)
        var inner = writer.beginObject()
        writer.writeKey("code", in: &inner)
        writer.writeRaw(String(error.status.code))
        writer.writeKey("message", in: &inner)
        let message = cloud ? error.cloudMessage : error.message
        writer.writeString(message)
        if cloud {
            writer.writeKey("errors", in: &inner)
            writer.writeRaw("[")
            var item = writer.beginObject()
            writer.writeKey("message", in: &item)
            writer.writeString(message)
            writer.writeKey("domain", in: &item)
            writer.writeString(error.cloudDomain)
            writer.writeKey("reason", in: &item)
            writer.writeString(error.cloudReason)
            writer.endObject(item)
            writer.writeRaw("]")
        }
        writer.endObject(inner)
        writer.endObject(outer)
        return json(writer.bytes, status: error.status, headers: headers)
    }

    /// The caller's origin reflected; a preflight gets every method the API takes and whatever
    /// headers the browser asks for.
    static let crossOrigin = CrossOriginPolicy(
        allowedOrigin: .caller, methods: "GET, HEAD, PUT, POST, PATCH, DELETE, OPTIONS",
        defaultHeaders: "Authorization, Content-Type, Range, X-Firebase-Storage-Version, X-Firebase-GMPID, X-Firebase-AppCheck",
        preflightStatus: .noContent)

    /// Adds the CORS headers every Storage response carries.
    static func withCORS(_ response: Response, request: Request) -> Response {
        var response = response
        crossOrigin.allowOrigin(&response.headers, for: request)
        response.headers[.accessControlExposeHeaders] = exposedHeaders
        return response
    }
}

extension HTTPField.Name {
    static let googUploadStatus = HTTPField.Name("X-Goog-Upload-Status")!
    static let googUploadCommand = HTTPField.Name("X-Goog-Upload-Command")!
    static let googUploadProtocol = HTTPField.Name("X-Goog-Upload-Protocol")!
    static let googUploadOffset = HTTPField.Name("X-Goog-Upload-Offset")!
    static let googUploadURL = HTTPField.Name("X-Goog-Upload-URL")!
    static let googUploadSizeReceived = HTTPField.Name("X-Goog-Upload-Size-Received")!
    static let googUploadChunkGranularity = HTTPField.Name("X-Goog-Upload-Chunk-Granularity")!
    static let googUploadControlURL = HTTPField.Name("X-Goog-Upload-Control-URL")!
    static let guploaderUploadID = HTTPField.Name("X-GUploader-UploadID")!
    static let googUploadHeaderContentLength = HTTPField.Name("X-Goog-Upload-Header-Content-Length")!
    static let googUploadHeaderContentType = HTTPField.Name("X-Goog-Upload-Header-Content-Type")!
    static let googUploadContentLength = HTTPField.Name("X-Goog-Upload-Content-Length")!
    static let googUploadContentType = HTTPField.Name("X-Goog-Upload-Content-Type")!
    static let uploadContentType = HTTPField.Name("X-Upload-Content-Type")!
    static let uploadContentLength = HTTPField.Name("X-Upload-Content-Length")!
    static let httpMethodOverride = HTTPField.Name("X-HTTP-Method-Override")!
}
