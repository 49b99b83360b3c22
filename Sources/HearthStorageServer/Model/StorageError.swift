import HTTPTypes

/// Why a Storage request was refused, with the status and message Firebase answers
/// (spec storage-api §8).
enum StorageError: Error, Equatable {
    /// No object of that name (404 `Not Found.`; GCS `No such object: b/o`).
    case objectNotFound(bucket: String, name: String)
    /// Rules denied the operation (403); `permission` is `READ`, `WRITE` or `LIST`.
    case permissionDenied(permission: String)
    /// No valid rules are loaded for the bucket (403), so nothing is allowed.
    case noRuleset
    /// An admin-only operation without admin credentials (403).
    case missingAdminCredentials
    /// The credential presented is not valid (401).
    case invalidCredential
    /// A malformed request (400) with Firebase's text.
    case badRequest(String)
    /// An object name Storage does not accept (400).
    case invalidObjectName(String)
    /// A bucket name GCS does not accept (400; ``BucketName``).
    case invalidBucketName(String)
    /// Custom metadata past GCS's 8 KiB of keys and values per object (400).
    case metadataTooLarge(limit: Int)
    /// A resumable start past the caller's cap on open sessions (429).
    case tooManyUploads(limit: Int)
    /// Resumable bytes past the caller's cap on unfinished bytes (429).
    case unfinishedBytesExceeded(limit: Int64)
    /// An object larger than the server's limit (400).
    case objectTooLarge(limit: Int64)
    /// No bucket of that name (404; production serves only existing buckets).
    case bucketNotFound
    /// No resumable upload of that id (404).
    case uploadNotFound
    /// A command for an upload that is finished or cancelled (400).
    case uploadNotActive(status: String)
    /// A chunk whose offset is past the bytes received (400; the upload stays active).
    case offsetPastReceived(offset: Int64, received: Int64)
    /// A route or form Hearth does not serve (501).
    case notImplemented(String)
    /// A method the path does not take (405).
    case methodNotAllowed

    var status: HTTPResponse.Status {
        switch self {
        case .objectNotFound, .bucketNotFound, .uploadNotFound: .notFound
        case .permissionDenied, .noRuleset, .missingAdminCredentials: .forbidden
        case .invalidCredential: .unauthorized
        case .badRequest, .invalidObjectName, .invalidBucketName, .metadataTooLarge, .objectTooLarge, .uploadNotActive,
            .offsetPastReceived:
            .badRequest
        case .tooManyUploads, .unfinishedBytesExceeded: .tooManyRequests
        case .notImplemented: .notImplemented
        case .methodNotAllowed: .methodNotAllowed
        }
    }

    var message: String {
        switch self {
        case .objectNotFound: "Not Found."
        case .permissionDenied(let permission): "Permission denied. No \(permission) permission."
        case .noRuleset: "Permission denied. Storage Emulator has no loaded ruleset."
        case .missingAdminCredentials: "Missing admin credentials."
        case .invalidCredential: "Invalid authentication credentials."
        case .badRequest(let text): text
        case .invalidObjectName(let reason): "Invalid object name: \(reason)"
        case .invalidBucketName(let name): "Invalid bucket name: '\(name)'"
        case .metadataTooLarge(let limit): "The custom metadata of an object may have at most \(limit) bytes of keys and values."
        case .tooManyUploads(let limit): "Too many resumable uploads in progress: at most \(limit) per caller."
        case .unfinishedBytesExceeded(let limit): "The resumable uploads in progress would exceed \(limit) bytes per caller."
        case .objectTooLarge(let limit): "The object exceeds the maximum object size of \(limit) bytes."
        case .bucketNotFound: "The specified bucket does not exist."
        case .uploadNotFound: "Upload not found."
        case .uploadNotActive(let status): "The upload is \(status == "final" ? "already finalized" : "cancelled")."
        case .offsetPastReceived(let offset, let received): "Invalid upload offset \(offset): \(received) bytes were received."
        case .notImplemented(let what): "Not implemented: \(what)."
        case .methodNotAllowed: "Method not allowed."
        }
    }

    /// The `X-Goog-Upload-Status` a resumable-upload answer carries with this error, if any:
    /// clients query and resume only on an `active` one.
    var uploadStatus: String? {
        switch self {
        case .offsetPastReceived: "active"
        case .uploadNotActive(let status): status
        default: nil
        }
    }

    /// The message of the GCS API, which names the object when it is not found.
    var cloudMessage: String {
        if case .objectNotFound(let bucket, let name) = self { return "No such object: \(bucket)/\(name)" }
        return message
    }

    /// GCS's `reason` for the `errors` array.
    var cloudReason: String {
        switch status {
        case .notFound: "notFound"
        case .forbidden: "forbidden"
        case .unauthorized: "required"
        case .notImplemented: "notImplemented"
        case .tooManyRequests: "rateLimitExceeded"
        default: "invalid"
        }
    }

    /// GCS's `domain` for the `errors` array: quota refusals are `usageLimits`.
    var cloudDomain: String {
        status == .tooManyRequests ? "usageLimits" : "global"
    }
}
