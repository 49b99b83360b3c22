/// A resumable upload (spec storage-api §4.4, §9.3): what its start request said, who started
/// it, and how far it got. Its bytes are a file of ``BlobDirectory``.
struct ResumableUpload: Codable, Sendable {
    /// Where an upload stands: `active` until finalized (`final`) or cancelled.
    enum State: String, Codable, Sendable {
        case active
        case final
        case cancelled
    }

    /// Which API started it: the v0 API answers 200 to every chunk, the GCS API 308.
    enum API: String, Codable, Sendable {
        case firebase
        case cloud
    }

    var id: String
    var api: API
    var bucket: String
    var name: String
    /// The metadata JSON of the start request, applied at finalize.
    var metadataJSON: String
    /// The content type from the start request's headers, used when the metadata has none.
    var headerContentType: String?
    /// The size the client declared, if it did.
    var declaredSize: Int64?
    /// Who started the upload; rules see this identity at finalize.
    var caller: StorageCaller
    /// Bytes received and durable.
    var received: Int64
    var state: State
    /// The status the finalize was answered with (200, or 403 when rules denied it), repeated
    /// for a repeated finalize.
    var finalStatus: Int?
    /// The object it created, for answering repeated finalize and query requests.
    var object: StoredObject?
    /// Whose allowance it uses (``StorageCaller/uploadOwner(clientAddress:)``); `nil` for admin.
    var owner: String?
    /// When a request last moved it on (ms since 1970); it expires after
    /// ``ResumableUploadLimits/idleExpiry`` without one. Records from before expiry existed have
    /// none and count as expired.
    var lastActivity: Int64?
}
