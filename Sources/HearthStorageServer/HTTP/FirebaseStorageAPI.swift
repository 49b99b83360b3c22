import HTTPTypes
import HearthCore
import Hummingbird
import NIOCore

/// The Firebase v0 API (spec storage-api §1.5): metadata, downloads, lists, metadata updates,
/// deletes, download tokens and uploads (``FirebaseStorageAPI/upload(_:bucket:name:parameters:)``).
struct FirebaseStorageAPI: Sendable {
    let service: StorageService
    let credentials: StorageCredentials
    /// `http://host:port` as the client reached the server.
    let baseURL: String
    /// The client's IP address (a signed-out caller's allowance of resumable uploads).
    let clientAddress: String

    func respond(to request: Request, route: StorageRoute, parameters: [String: String]) async throws -> Response {
        let (bucket, pathName): (String, String?) =
            switch route {
            case .firebaseObjects(let bucket): (bucket, nil)
            case .firebaseObject(let bucket, let name): (bucket, name)
            default: throw StorageError.badRequest("Invalid HTTP method/URL pair.")
            }
        var method = request.method
        if method == .put, request.headers[.httpMethodOverride]?.uppercased() == "PATCH" { method = .patch }
        let isUploadCommand = parameters["upload_id"] != nil || request.headers[.googUploadCommand] != nil
        // Uploads: POST, or PUT with an upload command or an object in the path (Apple).
        if method == .post || (method == .put && (isUploadCommand || pathName != nil)) {
            if let name = pathName, method == .post, parameters["create_token"] != nil || parameters["delete_token"] != nil {
                return try await tokenRequest(request, bucket: bucket, name: name, parameters: parameters)
            }
            return try await FirebaseUploads(
                service: service, credentials: credentials, baseURL: baseURL, clientAddress: clientAddress
            )
            .respond(to: request, bucket: bucket, pathName: pathName, parameters: parameters)
        }
        switch (method, pathName) {
        case (.get, nil), (.head, nil):
            return try await list(request, bucket: bucket, parameters: parameters)
        case (.get, let name?), (.head, let name?):
            return try await read(request, bucket: bucket, name: name, parameters: parameters)
        case (.patch, let name?):
            var request = request
            let change = try MetadataChange(json: try await StorageRequestParts.collect(&request))
            let caller = try await credentials.caller(of: request)
            let object = try await service.patch(bucket: bucket, name: name, change: change, caller: caller, params: parameters)
            return Self.metadataResponse(object)
        case (.delete, let name?):
            let caller = try await credentials.caller(of: request)
            try await service.delete(bucket: bucket, name: name, caller: caller, params: parameters)
            return Response(status: .noContent)
        default:
            throw StorageError.badRequest("Invalid HTTP method/URL pair.")
        }
    }

    /// Metadata, or the bytes with `alt=media`; a valid `token=` needs no credentials.
    private func read(_ request: Request, bucket: String, name: String, parameters: [String: String]) async throws -> Response {
        let caller = try await credentials.caller(of: request)
        let object = try await service.readForFirebase(
            bucket: bucket, name: name, token: parameters["token"], caller: caller, params: parameters)
        guard parameters["alt"] == "media" else { return Self.metadataResponse(object) }
        return ObjectDownload.response(for: object, blobs: service.blobs, request: request)
    }

    private func list(_ request: Request, bucket: String, parameters: [String: String]) async throws -> Response {
        let caller = try await credentials.caller(of: request)
        let maxResults = try Self.maxResults(parameters["maxResults"])
        let page = try await service.listForFirebase(
            bucket: bucket, prefix: parameters["prefix"] ?? "", delimiter: parameters["delimiter"],
            pageToken: parameters["pageToken"].flatMap { $0.isEmpty ? nil : $0 }, maxResults: maxResults, caller: caller,
            params: parameters)
        var writer = JSONWriter()
        var scope = writer.beginObject()
        writer.writeKey("prefixes", in: &scope)
        writer.writeRaw("[")
        for (index, prefix) in page.prefixes.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            writer.writeString(prefix)
        }
        writer.writeRaw("]")
        writer.writeKey("items", in: &scope)
        writer.writeRaw("[")
        for (index, item) in page.items.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            ObjectJSON.writeStrings(["name": item.name, "bucket": item.bucket], into: &writer)
        }
        writer.writeRaw("]")
        if let token = page.nextPageToken {
            writer.writeKey("nextPageToken", in: &scope)
            writer.writeString(token)
        }
        writer.endObject(scope)
        return StorageResponses.json(writer.bytes)
    }

    /// `maxResults`: 1–1000, default 1000.
    static func maxResults(_ text: String?) throws(StorageError) -> Int {
        guard let text else { return 1000 }
        guard let value = Int(text), (1...1000).contains(value) else {
            throw .badRequest("Invalid maxResults: \(text). It must be an integer from 1 to 1000.")
        }
        return value
    }

    /// `create_token=true` / `delete_token=<t>`: admin only (spec storage-api §5).
    private func tokenRequest(_ request: Request, bucket: String, name: String, parameters: [String: String]) async throws
        -> Response
    {
        guard try await credentials.caller(of: request) == .admin else { throw StorageError.missingAdminCredentials }
        if let create = parameters["create_token"] {
            guard create == "true" else { throw StorageError.badRequest("Invalid create_token value: \(create).") }
            return Self.metadataResponse(try await service.createDownloadToken(bucket: bucket, name: name))
        }
        let object = try await service.deleteDownloadToken(parameters["delete_token"] ?? "", bucket: bucket, name: name)
        return Self.metadataResponse(object)
    }

    /// Metadata JSON, with the headers of §2.1 echoed, except `Content-Encoding`: it would
    /// describe the JSON body, and an HTTP client would try to decode the JSON as `gzip`.
    static func metadataResponse(_ object: StoredObject, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        if let value = object.contentDisposition { headers[.contentDisposition] = value }
        if let value = object.cacheControl { headers[.cacheControl] = value }
        if let value = object.contentLanguage { headers[.contentLanguage] = value }
        return StorageResponses.json(ObjectJSON.firebase(object), headers: headers)
    }
}
