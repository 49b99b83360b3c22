import HearthEdge
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What an upload is told about the object besides its bytes.
struct UploadDescription: Sendable {
    var api: ResumableUpload.API
    var bucket: String
    var name: String
    var change: MetadataChange
    /// The content type from headers, used when the metadata names none.
    var headerContentType: String?
    var caller: StorageCaller
    var params: [String: String] = [:]
    /// The client's IP address: a signed-out caller's resumable uploads count against it.
    var clientAddress = ""
}

extension StorageService {
    /// A single-request upload (media or multipart): the bytes go to disk as they arrive, then
    /// rules decide on `create` and the object replaces any of its name.
    func upload<Body: AsyncSequence>(_ description: UploadDescription, body: Body) async throws -> StoredObject
    where Body.Element == ByteBuffer {
        try ObjectName.validate(description.name)
        try await useBucket(description.bucket)
        let (blob, digest) = try await blobs.write(body, limit: settings.maximumObjectSize)
        do {
            return try await commit(description, blob: blob, digest: digest)
        } catch {
            await blobs.removeBlob(blob)
            throw error
        }
    }

    /// Records a blob already in place as the object `description` names, if rules allow.
    private func commit(_ description: UploadDescription, blob: String, digest: ContentDigest) async throws -> StoredObject {
        let (md5, crc32c) = digest.finish()
        try Self.verify(description.change, md5: md5, crc32c: crc32c)
        let (stored, replaced): (StoredObject, StoredObject?) = try await mutations.run(.metadata) { [self] in
            let existing = try await store.object(bucket: description.bucket, name: description.name)
            let object = newObject(description, blob: blob, size: digest.size, md5: md5, crc32c: crc32c)
            try authorizeCreate(description, object, replacing: existing)
            try await store.put(object)
            return (object, existing)
        }
        if let replaced { await blobs.removeBlob(replaced.blob) }
        return stored
    }

    /// Refuses `object` as the upload `description` creates unless its custom metadata fits and
    /// rules allow `create`.
    private func authorizeCreate(_ description: UploadDescription, _ object: StoredObject, replacing existing: StoredObject?)
        throws(StorageError)
    {
        try object.checkCustomMetadataSize()
        try authorize(
            description.caller,
            StorageRuleCheck(
                method: .create, bucket: description.bucket, path: description.name, resource: existing,
                requestResource: object, params: description.params))
    }

    /// The object an upload creates: a new generation whose metadata comes from the upload
    /// alone. v0 uploads get a download token and `contentDisposition: inline` by default.
    private func newObject(_ description: UploadDescription, blob: String, size: Int64, md5: [UInt8], crc32c: UInt32)
        -> StoredObject
    {
        let time = now
        var object = StoredObject(
            bucket: description.bucket, name: description.name, generation: newGeneration, metageneration: 1, size: size,
            md5: md5, crc32c: crc32c, contentType: nil, metadata: [:], downloadTokens: [], timeCreated: time, updated: time,
            blob: blob)
        object = description.change.applied(to: object)
        if object.contentType == nil {
            object.contentType = description.headerContentType ?? "application/octet-stream"
        }
        if description.api == .firebase {
            if object.contentDisposition == nil { object.contentDisposition = "inline" }
            if object.downloadTokens.isEmpty { object.downloadTokens = [UUID().uuidString.lowercased()] }
        }
        return object
    }

    /// Refuses bytes whose digests differ from ones the client computed (GCS uploads send them).
    private static func verify(_ change: MetadataChange, md5: [UInt8], crc32c: UInt32) throws(StorageError) {
        if let expected = change.md5Hash, expected != Base64URL.standard(md5) {
            throw .badRequest("Provided MD5 hash \"\(expected)\" doesn't match calculated MD5 hash \"\(Base64URL.standard(md5))\".")
        }
        if let expected = change.crc32c, expected != CRC32C.base64(crc32c) {
            throw .badRequest(
                "Provided CRC32C \"\(expected)\" doesn't match calculated CRC32C \"\(CRC32C.base64(crc32c))\".")
        }
    }

    // MARK: Resumable uploads

    /// Starts a resumable upload. Rules are asked about the object the start describes (its
    /// declared size, or 0, and no digests yet), as again at finalize, so that nobody parks bytes
    /// where they may not write; then the caller's caps (``ResumableUploadLimits``) apply.
    func startUpload(_ description: UploadDescription, metadataJSON: String, declaredSize: Int64?) async throws
        -> ResumableUpload
    {
        try ObjectName.validate(description.name)
        if let declaredSize, declaredSize > settings.maximumObjectSize {
            throw StorageError.objectTooLarge(limit: settings.maximumObjectSize)
        }
        try await useBucket(description.bucket)
        let proposed = newObject(description, blob: "", size: declaredSize ?? 0, md5: [], crc32c: 0)
        try authorizeCreate(
            description, proposed, replacing: try await store.object(bucket: description.bucket, name: description.name))
        try await removeExpiredUploadsNowAndThen()
        let upload = ResumableUpload(
            id: BlobID.make() + BlobID.make(), api: description.api, bucket: description.bucket,
            name: description.name, metadataJSON: metadataJSON, headerContentType: description.headerContentType,
            declaredSize: declaredSize, caller: description.caller, received: 0, state: .active,
            owner: description.caller.uploadOwner(clientAddress: description.clientAddress), lastActivity: now)
        try await mutations.run(.metadata) { [self] in
            try await admitUpload(owner: upload.owner, declaredSize: declaredSize)
            try await blobs.truncate(upload: upload.id, to: 0)
            try await store.put(upload)
        }
        return upload
    }

    /// The upload `id`, or `uploadNotFound` (also for one that expired, which goes now).
    func upload(_ id: String) async throws -> ResumableUpload {
        guard let upload = try await store.upload(id) else { throw StorageError.uploadNotFound }
        if isExpired(upload) {
            try await removeUpload(id)
            throw StorageError.uploadNotFound
        }
        return upload
    }

    /// Writes a chunk at `offset` (re-sent bytes below the received count are written again, the
    /// same bytes at the same offsets); the upload records the new count, never lower than it
    /// was, once the bytes are durable.
    func appendChunk<Body: AsyncSequence>(_ body: Body, toUpload id: String, at offset: Int64) async throws -> ResumableUpload
    where Body.Element == ByteBuffer {
        let upload = try await upload(id)
        guard upload.state == .active else { throw StorageError.uploadNotActive(status: upload.state.rawValue) }
        guard offset <= upload.received else { throw StorageError.offsetPastReceived(offset: offset, received: upload.received) }
        let (limit, refusal) = try await growthLimit(of: upload)
        let received = try await blobs.append(body, toUpload: id, at: offset, limit: limit, refusal: refusal)
        return try await mutations.run(.metadata) { [self] in
            guard var current = try await store.upload(id), current.state == .active else {
                throw StorageError.uploadNotActive(status: "cancelled")
            }
            // A request that ended after a later chunk's never takes the size received back.
            current.received = max(current.received, received)
            current.lastActivity = now
            try await store.put(current)
            return current
        }
    }

    /// Finishes upload `id`: rules decide on `create` with the identity of the start request. A
    /// repeated finalize, even one that arrives while the first runs, is answered as the first
    /// was.
    func finalize(upload id: String) async throws -> ResumableUpload {
        try await finalizations.run(.finalization(id)) { [self] in try await finalizeAlone(upload: id) }
    }

    private func finalizeAlone(upload id: String) async throws -> ResumableUpload {
        var upload = try await upload(id)
        switch upload.state {
        case .cancelled: throw StorageError.uploadNotActive(status: "cancelled")
        case .final: return upload
        case .active: break
        }
        if let declared = upload.declaredSize, declared != upload.received {
            throw StorageError.badRequest(
                "The upload was finalized after \(upload.received) bytes, but its declared size is \(declared) bytes.")
        }
        try await blobs.truncate(upload: id, to: upload.received)
        let digest = try await blobs.digest(ofUpload: id)
        let change = try MetadataChange(json: Array(upload.metadataJSON.utf8))
        let description = UploadDescription(
            api: upload.api, bucket: upload.bucket, name: upload.name, change: change, headerContentType: upload.headerContentType,
            caller: upload.caller)
        let blob = try await blobs.adopt(upload: id)
        do {
            upload.object = try await commit(description, blob: blob, digest: digest)
            upload.finalStatus = 200
        } catch let error as StorageError where error.status == .forbidden {
            await blobs.removeBlob(blob)
            upload.finalStatus = 403
        } catch {
            // The upload stays active, its bytes where a retried finalize finds them.
            if (try? await blobs.restore(blob: blob, toUpload: id)) == nil { await blobs.removeBlob(blob) }
            throw error
        }
        upload.state = .final
        upload.lastActivity = now
        try await store.put(upload)
        return upload
    }

    /// Cancels upload `id` and drops its bytes; cancelling twice is harmless, cancelling a
    /// finished upload is refused.
    func cancel(upload id: String) async throws {
        var upload = try await upload(id)
        switch upload.state {
        case .final: throw StorageError.uploadNotActive(status: "final")
        case .cancelled: return
        case .active: break
        }
        upload.state = .cancelled
        upload.lastActivity = now
        try await store.put(upload)
        await blobs.removeUpload(id)
    }
}
