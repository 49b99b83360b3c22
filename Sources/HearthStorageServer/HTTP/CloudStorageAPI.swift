import HTTPTypes
import HearthCore
import Hummingbird
import NIOCore

/// The GCS JSON API subset the Admin SDKs use (spec storage-api §9): buckets, object metadata,
/// PATCH, delete, list, downloads, copies and uploads (``CloudUploads``). It is an admin API: no
/// rules apply (production requires an admin credential, checked by ``StorageEndpoint``).
struct CloudStorageAPI: Sendable {
    let service: StorageService
    let baseURL: String

    func respond(to request: Request, route: StorageRoute, parameters: [String: String]) async throws -> Response {
        switch (request.method, route) {
        case (.get, .cloudBuckets):
            return try await buckets()
        case (.get, .cloudBucket(let bucket)):
            try await service.useBucket(bucket)
            guard let created = try await service.store.bucketCreated(bucket) else { throw StorageError.bucketNotFound }
            var writer = JSONWriter()
            Self.writeBucket(bucket, created: created, into: &writer)
            return StorageResponses.json(writer.bytes)
        case (.get, .cloudObjects(let bucket)):
            return try await list(bucket: bucket, parameters: parameters)
        case (.get, .cloudObject(let bucket, let name)), (.get, .cloudDownload(let bucket, let name)):
            let generation = try parameters["generation"].map { text throws(StorageError) -> Int64 in
                guard let value = Int64(text) else { throw .badRequest("Invalid generation: \(text).") }
                return value
            }
            let object = try await service.readAsAdmin(bucket: bucket, name: name, generation: generation)
            if parameters["alt"] == "media" || route == .cloudDownload(bucket: bucket, name: name) {
                return ObjectDownload.response(for: object, blobs: service.blobs, request: request)
            }
            return StorageResponses.json(ObjectJSON.cloud(object, baseURL: baseURL))
        case (.patch, .cloudObject(let bucket, let name)), (.put, .cloudObject(let bucket, let name)):
            var request = request
            let change = try MetadataChange(json: try await StorageRequestParts.collect(&request))
            let object = try await service.patch(bucket: bucket, name: name, change: change, caller: .admin, params: parameters)
            return StorageResponses.json(ObjectJSON.cloud(object, baseURL: baseURL))
        case (.delete, .cloudObject(let bucket, let name)):
            try await service.delete(bucket: bucket, name: name, caller: .admin, params: parameters)
            return Response(status: .noContent)
        case (.post, .cloudCopy(let bucket, let name, let toBucket, let toName)):
            var request = request
            let change = try MetadataChange(json: try await StorageRequestParts.collect(&request))
            let copy = try await service.copy(bucket: bucket, name: name, toBucket: toBucket, toName: toName, change: change)
            if request.uri.path.contains("/rewriteTo/") { return rewriteResponse(copy) }
            return StorageResponses.json(ObjectJSON.cloud(copy, baseURL: baseURL))
        case (.post, .cloudObjectACL):
            var request = request
            return StorageResponses.json(try await StorageRequestParts.collect(&request))
        case (.post, .cloudUpload(let bucket)), (.put, .cloudUpload(let bucket)):
            return try await CloudUploads(service: service, baseURL: baseURL).respond(
                to: request, bucket: bucket, parameters: parameters)
        default:
            throw StorageError.notImplemented("\(request.method) \(request.uri.path)")
        }
    }

    private func buckets() async throws -> Response {
        var writer = JSONWriter()
        var scope = writer.beginObject()
        writer.writeKey("kind", in: &scope)
        writer.writeString("storage#buckets")
        writer.writeKey("items", in: &scope)
        writer.writeRaw("[")
        for (index, bucket) in try await service.store.buckets().enumerated() {
            if index > 0 { writer.writeRaw(",") }
            Self.writeBucket(bucket.name, created: bucket.created, into: &writer)
        }
        writer.writeRaw("]")
        writer.endObject(scope)
        return StorageResponses.json(writer.bytes)
    }

    /// A bucket resource.
    private static func writeBucket(_ name: String, created: Int64, into writer: inout JSONWriter) {
        var scope = writer.beginObject()
        let time = StorageTimestamp.format(milliseconds: created)
        for (key, value) in [
            ("kind", "storage#bucket"), ("id", name), ("name", name), ("location", "US"), ("storageClass", "STANDARD"),
            ("timeCreated", time), ("updated", time), ("metageneration", "1"), ("etag", "CAE="), ("projectNumber", "12345"),
        ] {
            writer.writeKey(key, in: &scope)
            writer.writeString(value)
        }
        writer.endObject(scope)
    }

    private func list(bucket: String, parameters: [String: String]) async throws -> Response {
        try await service.useBucket(bucket)
        let maxResults = try parameters["maxResults"].map { text throws(StorageError) -> Int in
            guard let value = Int(text), value > 0 else { throw .badRequest("Invalid maxResults: \(text).") }
            return min(value, 1000)
        }
        let page = try await service.list(
            bucket: bucket, prefix: parameters["prefix"] ?? "", delimiter: parameters["delimiter"],
            pageToken: parameters["pageToken"].flatMap { $0.isEmpty ? nil : $0 }, maxResults: maxResults ?? 1000, style: .cloud)
        var writer = JSONWriter()
        var scope = writer.beginObject()
        writer.writeKey("kind", in: &scope)
        writer.writeString("storage#objects")
        if !page.prefixes.isEmpty {
            writer.writeKey("prefixes", in: &scope)
            writer.writeRaw("[")
            for (index, prefix) in page.prefixes.enumerated() {
                if index > 0 { writer.writeRaw(",") }
                writer.writeString(prefix)
            }
            writer.writeRaw("]")
        }
        writer.writeKey("items", in: &scope)
        writer.writeRaw("[")
        for (index, item) in page.items.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            ObjectJSON.write(cloud: item, baseURL: baseURL, into: &writer)
        }
        writer.writeRaw("]")
        if let token = page.nextPageToken {
            writer.writeKey("nextPageToken", in: &scope)
            writer.writeString(token)
        }
        writer.endObject(scope)
        return StorageResponses.json(writer.bytes)
    }

    /// A finished rewrite: everything copied in one call.
    private func rewriteResponse(_ object: StoredObject) -> Response {
        var writer = JSONWriter()
        var scope = writer.beginObject()
        for (key, value) in [
            ("kind", "storage#rewriteResponse"), ("totalBytesRewritten", String(object.size)), ("objectSize", String(object.size)),
        ] {
            writer.writeKey(key, in: &scope)
            writer.writeString(value)
        }
        writer.writeKey("done", in: &scope)
        writer.writeRaw("true")
        writer.writeKey("resource", in: &scope)
        ObjectJSON.write(cloud: object, baseURL: baseURL, into: &writer)
        writer.endObject(scope)
        return StorageResponses.json(writer.bytes)
    }
}
