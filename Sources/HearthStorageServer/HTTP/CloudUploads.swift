import HTTPTypes
import HearthEdge
import Hummingbird
import NIOCore

/// Uploads through the GCS JSON API (spec storage-api §9.2, §9.3): `uploadType=media`,
/// `multipart`, and `resumable`, whose chunks (`PUT` with `Content-Range`) are answered 308 with
/// `Range: bytes=0-N` until the last one completes the object.
struct CloudUploads: Sendable {
    let service: StorageService
    let baseURL: String

    func respond(to request: Request, bucket: String, parameters: [String: String]) async throws -> Response {
        if let id = parameters["upload_id"] { return try await continueUpload(request, id: id) }
        var description = UploadDescription(
            api: .cloud, bucket: bucket, name: parameters["name"] ?? "", change: MetadataChange(),
            headerContentType: request.headers[.uploadContentType], caller: .admin, params: parameters)
        switch parameters["uploadType"] {
        case "multipart":
            let multipart = try await MultipartBody.read(request.body, contentType: request.headers[.contentType])
            description.change = try MetadataChange(json: multipart.metadata)
            description.name = try Self.name(description.change.name ?? description.name)
            description.headerContentType = description.headerContentType ?? multipart.dataContentType
            let object = try await service.upload(description, body: multipart.data)
            return StorageResponses.json(ObjectJSON.cloud(object, baseURL: baseURL))
        case "resumable":
            var request = request
            let body = try await StorageRequestParts.collect(&request)
            description.change = try MetadataChange(json: body)
            description.name = try Self.name(description.change.name ?? description.name)
            let declaredSize = request.headers[.uploadContentLength].flatMap { Int64($0) }
            let upload = try await service.startUpload(
                description, metadataJSON: String(decoding: body, as: UTF8.self), declaredSize: declaredSize)
            var headers = HTTPFields()
            headers[.location] =
                "\(baseURL)/upload/storage/v1/b/\(PercentEncoding.encode(bucket))/o?uploadType=resumable"
                + "&name=\(PercentEncoding.encode(upload.name))&upload_id=\(upload.id)"
            return Response(status: .ok, headers: headers)
        case "media", nil:
            description.name = try Self.name(description.name)
            description.headerContentType = request.headers[.contentType]
            let object = try await service.upload(description, body: request.body)
            return StorageResponses.json(ObjectJSON.cloud(object, baseURL: baseURL))
        case let other?:
            throw StorageError.badRequest("Invalid uploadType: \(other).")
        }
    }

    /// The object name, without one leading `/` (as the emulator strips it).
    private static func name(_ name: String) throws(StorageError) -> String {
        let name = name.hasPrefix("/") ? String(name.dropFirst()) : name
        guard !name.isEmpty else { throw .badRequest("Required parameter: name") }
        return name
    }

    /// A chunk, a status query (`bytes */*`) or a cancel (`DELETE`) of a resumable session.
    private func continueUpload(_ request: Request, id: String) async throws -> Response {
        if request.method == .delete {
            try await service.cancel(upload: id)
            return Response(status: HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request"))
        }
        var upload = try await service.upload(id)
        if upload.state == .final { return completed(upload) }
        guard upload.state == .active else { throw StorageError.uploadNotActive(status: upload.state.rawValue) }
        let range = try ContentRange(request.headers[.contentRange])
        if let first = range.first {
            upload = try await service.appendChunk(request.body, toUpload: id, at: first)
        }
        let total = request.headers[.contentRange] == nil ? upload.received : range.total
        if let total, total == upload.received {
            return completed(try await service.finalize(upload: id))
        }
        var headers = HTTPFields()
        if upload.received > 0 { headers[.range] = "bytes=0-\(upload.received - 1)" }
        return Response(status: HTTPResponse.Status(code: 308, reasonPhrase: "Resume Incomplete"), headers: headers)
    }

    private func completed(_ upload: ResumableUpload) -> Response {
        guard let object = upload.object else {
            return StorageResponses.error(.permissionDenied(permission: "WRITE"), cloud: true)
        }
        return StorageResponses.json(ObjectJSON.cloud(object, baseURL: baseURL))
    }
}

/// A resumable chunk's `Content-Range`: `bytes a-b/total`, `bytes a-b/*`, `bytes */total` or
/// `bytes */*`. No header means the body is the whole object.
struct ContentRange: Equatable {
    /// The chunk's first byte, when the request carries bytes.
    var first: Int64?
    /// The object's total size, once the client knows it.
    var total: Int64?

    init(_ header: String?) throws(StorageError) {
        guard let header else {
            first = 0
            return
        }
        guard header.hasPrefix("bytes "), let slash = header.firstIndex(of: "/") else {
            throw .badRequest("Invalid Content-Range: \(header).")
        }
        let span = header[header.index(header.startIndex, offsetBy: 6)..<slash]
        let totalText = header[header.index(after: slash)...]
        if totalText != "*" {
            guard let total = Int64(totalText) else { throw .badRequest("Invalid Content-Range: \(header).") }
            self.total = total
        }
        if span != "*" {
            let bounds = span.split(separator: "-")
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), last >= first else {
                throw .badRequest("Invalid Content-Range: \(header).")
            }
            self.first = first
        }
    }
}
