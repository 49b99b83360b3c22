import HTTPTypes
import HearthEdge
import Hummingbird
import NIOCore

/// Uploads through the v0 API (spec storage-api §4): media and multipart in one request, and
/// resumable uploads — a start, which rules must allow, then commands sent to the upload URL,
/// which carry no credentials (the start's identity is used at finalize). Answers are always 200
/// on success, never 308.
struct FirebaseUploads: Sendable {
    let service: StorageService
    let credentials: StorageCredentials
    let baseURL: String
    let clientAddress: String

    /// The chunk granularity announced to clients (Google's upload servers use 256 KiB).
    static let granularity = 262_144

    func respond(to request: Request, bucket: String, pathName: String?, parameters: [String: String]) async throws -> Response {
        let command = request.headers[.googUploadCommand]?.lowercased()
        if let id = parameters["upload_id"] {
            guard let command else { throw StorageError.badRequest("Missing X-Goog-Upload-Command header.") }
            return try await continueUpload(request, id: id, command: command)
        }
        if let command, command != "start" {
            throw StorageError.badRequest("Missing upload_id for X-Goog-Upload-Command: \(command).")
        }
        guard let name = pathName ?? parameters["name"] else {
            throw StorageError.badRequest("The object name is missing: give it in the path or as the name parameter.")
        }
        let caller = try await credentials.caller(of: request)
        let uploadProtocol = (request.headers[.googUploadProtocol] ?? parameters["uploadType"])?.lowercased()
        var description = UploadDescription(
            api: .firebase, bucket: bucket, name: name, change: MetadataChange(), headerContentType: nil, caller: caller,
            params: parameters, clientAddress: clientAddress)
        if command == "start" { return try await start(request, description: description) }
        switch uploadProtocol {
        case "multipart":
            let multipart = try await MultipartBody.read(request.body, contentType: request.headers[.contentType])
            description.change = try MetadataChange(json: multipart.metadata)
            description.headerContentType = multipart.dataContentType
            if let metadataName = description.change.name, pathName == nil, parameters["name"] == nil {
                description.name = metadataName
            }
            return FirebaseStorageAPI.metadataResponse(try await service.upload(description, body: multipart.data))
        case nil, "media", "raw":
            description.headerContentType = request.headers[.contentType]
            return FirebaseStorageAPI.metadataResponse(try await service.upload(description, body: request.body))
        case "resumable":
            throw StorageError.badRequest("A resumable upload starts with X-Goog-Upload-Command: start.")
        case let other?:
            throw StorageError.badRequest("Unsupported upload protocol '\(other)'.")
        }
    }

    /// A resumable upload's start: the metadata JSON body and the declared size are kept; the
    /// client gets the upload URL.
    private func start(_ request: Request, description: UploadDescription) async throws -> Response {
        var request = request
        var description = description
        let body = try await StorageRequestParts.collect(&request)
        description.change = try MetadataChange(json: body)
        description.headerContentType =
            request.headers[.googUploadHeaderContentType] ?? request.headers[.googUploadContentType]
        let sizeHeader = request.headers[.googUploadHeaderContentLength] ?? request.headers[.googUploadContentLength]
        let declaredSize = try sizeHeader.map { text throws(StorageError) -> Int64 in
            guard let size = Int64(text), size >= 0 else { throw .badRequest("Invalid upload size: \(text).") }
            return size
        }
        let upload = try await service.startUpload(
            description, metadataJSON: String(decoding: body, as: UTF8.self), declaredSize: declaredSize)
        var headers = HTTPFields()
        headers[.googUploadStatus] = "active"
        headers[.googUploadURL] =
            "\(baseURL)/v0/b/\(PercentEncoding.encode(upload.bucket))/o?name=\(PercentEncoding.encode(upload.name))"
            + "&upload_id=\(upload.id)&upload_protocol=resumable"
        headers[.guploaderUploadID] = upload.id
        headers[.googUploadChunkGranularity] = String(Self.granularity)
        headers[.googUploadControlURL] = ""
        return Response(status: .ok, headers: headers)
    }

    /// `query`, `upload`, `upload, finalize`, `finalize` and `cancel` on the upload URL.
    private func continueUpload(_ request: Request, id: String, command: String) async throws -> Response {
        let verbs = Set(command.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        if verbs == ["query"] { return status(of: try await service.upload(id)) }
        if verbs == ["cancel"] {
            try await service.cancel(upload: id)
            var headers = HTTPFields()
            headers[.googUploadStatus] = "cancelled"
            return Response(status: .ok, headers: headers)
        }
        guard !verbs.isEmpty, verbs.isSubset(of: ["upload", "finalize"]) else {
            throw StorageError.badRequest("Invalid X-Goog-Upload-Command: \(command).")
        }
        if verbs.contains("upload") {
            let current = try await service.upload(id)
            // A last chunk sent again (its answer was lost) is answered as a repeated finalize.
            if current.state == .final, verbs.contains("finalize") { return status(of: current) }
            if current.state != .active { throw StorageError.uploadNotActive(status: current.state.rawValue) }
            guard let offsetText = request.headers[.googUploadOffset], let offset = Int64(offsetText), offset >= 0 else {
                throw StorageError.badRequest("Missing or invalid X-Goog-Upload-Offset header.")
            }
            let upload = try await service.appendChunk(request.body, toUpload: id, at: offset)
            if !verbs.contains("finalize") { return status(of: upload) }
        }
        return status(of: try await service.finalize(upload: id))
    }

    /// An upload's state as headers; a finished one also carries its metadata (or, when rules
    /// denied it, the same 403 its finalize got).
    private func status(of upload: ResumableUpload) -> Response {
        var headers = HTTPFields()
        headers[.googUploadStatus] = upload.state.rawValue
        headers[.googUploadSizeReceived] = String(upload.received)
        switch (upload.state, upload.finalStatus, upload.object) {
        case (.final, 403, _):
            var response = StorageResponses.error(.permissionDenied(permission: "WRITE"), cloud: false)
            response.headers[.googUploadStatus] = "final"
            return response
        case (.final, _, let object?):
            return FirebaseStorageAPI.metadataResponse(object, headers: headers)
        default:
            return Response(status: .ok, headers: headers)
        }
    }
}
