import HTTPTypes
import HearthEdge
import Hummingbird
import NIOCore

/// The response that carries an object's bytes (spec storage-api §3 step 5, §9.4): streamed from
/// its blob, with GCS's headers, and `206` for a satisfiable `Range` (an unsatisfiable or
/// malformed one is ignored, as the emulator and the SDKs expect).
///
/// Bodies are uploaded by anyone the rules let write, so they are served as inert data: a browser
/// must not guess another type (`nosniff`), and an HTML or SVG body opened from Hearth runs
/// sandboxed, in an opaque origin without access to Hearth's cookies or storage.
enum ObjectDownload {
    static func response(for object: StoredObject, blobs: any BlobStore, request: Request) -> Response {
        var headers = HTTPFields()
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentSecurityPolicy] = "sandbox"
        headers[.contentType] = object.contentType ?? "application/octet-stream"
        headers[.contentDisposition] = "\(object.contentDisposition ?? "attachment"); filename*=\(rfc5987(object.fileName))"
        headers[.acceptRanges] = "bytes"
        headers[.eTag] = "\"\(object.etag)\""
        headers[.cacheControl] = object.cacheControl ?? ""
        if let encoding = object.contentEncoding { headers[.contentEncoding] = encoding }
        if let language = object.contentLanguage { headers[.contentLanguage] = language }
        headers[HTTPField.Name("x-goog-generation")!] = String(object.generation)
        headers[HTTPField.Name("x-goog-metageneration")!] = String(object.metageneration)
        headers[HTTPField.Name("x-goog-storage-class")!] = "STANDARD"
        headers[HTTPField.Name("x-goog-hash")!] = "crc32c=\(CRC32C.base64(object.crc32c)),md5=\(Base64URL.standard(object.md5))"
        headers[HTTPField.Name("x-goog-stored-content-length")!] = String(object.size)
        headers[HTTPField.Name("x-goog-stored-content-encoding")!] = object.contentEncoding ?? "identity"
        var status = HTTPResponse.Status.ok
        var range = 0..<object.size
        if let requested = request.headers[.range].flatMap({ byteRange($0, size: object.size) }) {
            range = requested
            status = .partialContent
            headers[.contentRange] = "bytes \(requested.lowerBound)-\(requested.upperBound - 1)/\(object.size)"
        }
        headers[.contentLength] = String(range.count)
        return Response(status: status, headers: headers, body: body(blob: object.blob, of: blobs, range: range))
    }

    /// A body that streams `range` of blob `blob`.
    private static func body(blob: String, of blobs: any BlobStore, range: Range<Int64>) -> ResponseBody {
        guard !range.isEmpty else { return ResponseBody() }
        return ResponseBody(contentLength: Int(range.count)) { writer in
            try await blobs.read(blob: blob, in: range) { chunk in try await writer.write(chunk) }
            try await writer.finish(nil)
        }
    }

    /// A single `bytes=a-b`, `bytes=a-` or `bytes=-n` range within an object of `size` bytes
    /// (end clamped to the last byte); `nil` when absent, malformed or unsatisfiable.
    static func byteRange(_ header: String, size: Int64) -> Range<Int64>? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst("bytes=".count)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int64(last), suffix > 0 else { return nil }
            return max(0, size - suffix)..<size
        }
        guard let start = Int64(first), start >= 0, start < size else { return nil }
        if last.isEmpty { return start..<size }
        guard let end = Int64(last), end >= start else { return nil }
        return start..<min(end + 1, size)
    }

    /// A file name as an RFC 5987 extended value, as GCS writes it (`filename*=testFile`).
    private static func rfc5987(_ name: String) -> String {
        let encoded = PercentEncoding.encode(name)
        return encoded == name ? name : "utf-8''\(encoded)"
    }
}
