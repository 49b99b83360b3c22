import Foundation

/// The codes of Storage errors, under the Firebase Apple SDK's names and raw values.
public enum StorageErrorCode: Int, Sendable {
    case unknown = -13000
    case objectNotFound = -13010
    case bucketNotFound = -13011
    case projectNotFound = -13012
    case quotaExceeded = -13013
    case unauthenticated = -13020
    case unauthorized = -13021
    case retryLimitExceeded = -13030
    case nonMatchingChecksum = -13031
    case downloadSizeExceeded = -13032
    case cancelled = -13040
    case invalidArgument = -13050
    case bucketMismatch = -13051
    case internalError = -13052
    case pathError = -13053
}

/// A code is an error too, as in Firebase: `throw StorageErrorCode.cancelled` gives an
/// `NSError` in `FIRStorageErrorDomain` with that code.
extension StorageErrorCode: Error, CustomNSError {
    public static var errorDomain: String { StorageErrorDomain }
    public var errorCode: Int { rawValue }
}

/// The domain of Storage errors as `NSError`s.
public let StorageErrorDomain = "FIRStorageErrorDomain"

/// A Storage error, as the Firebase Apple SDK reports it: its cases and their values are
/// Firebase's, and as an `NSError` it has the ``StorageErrorCode`` and Firebase's message in
/// `FIRStorageErrorDomain`. `serverError` holds what the server answered: `ResponseErrorCode`
/// (the HTTP status), `ResponseBody`, `bucket` and `object`; or, when there was no answer, the
/// network's error (`ResponseErrorDomain`, `ResponseErrorCode` and `NSUnderlyingErrorKey`).
///
/// Sendable although `serverError` is a `[String: Any]`: Hearth puts only strings, numbers and
/// `NSError`s, which are immutable, in it.
public enum StorageError: Error, CustomNSError, LocalizedError, @unchecked Sendable {
    case unknown(message: String, serverError: [String: Any])
    case objectNotFound(object: String, serverError: [String: Any])
    case bucketNotFound(bucket: String)
    case projectNotFound(project: String)
    case quotaExceeded(bucket: String, serverError: [String: Any])
    case unauthenticated(serverError: [String: Any])
    case unauthorized(bucket: String, object: String, serverError: [String: Any])
    case retryLimitExceeded
    case nonMatchingChecksum
    /// `total` is the object's size, or when the server did not say, the bytes received before
    /// the download stopped.
    case downloadSizeExceeded(total: Int64, maxSize: Int64)
    case cancelled
    case invalidArgument(message: String)
    case internalError(message: String)
    case bucketMismatch(message: String)
    case pathError(message: String)

    /// The error's code (a Hearth addition; Firebase's callers read `(error as NSError).code`).
    public var code: StorageErrorCode {
        switch self {
        case .unknown: .unknown
        case .objectNotFound: .objectNotFound
        case .bucketNotFound: .bucketNotFound
        case .projectNotFound: .projectNotFound
        case .quotaExceeded: .quotaExceeded
        case .unauthenticated: .unauthenticated
        case .unauthorized: .unauthorized
        case .retryLimitExceeded: .retryLimitExceeded
        case .nonMatchingChecksum: .nonMatchingChecksum
        case .downloadSizeExceeded: .downloadSizeExceeded
        case .cancelled: .cancelled
        case .invalidArgument: .invalidArgument
        case .internalError: .internalError
        case .bucketMismatch: .bucketMismatch
        case .pathError: .pathError
        }
    }

    /// Firebase's message for the error.
    public var errorDescription: String? {
        switch self {
        case .unknown(let message, _), .invalidArgument(let message), .internalError(let message), .bucketMismatch(let message),
            .pathError(let message):
            message
        case .objectNotFound(let object, _): "Object \(object) does not exist."
        case .bucketNotFound(let bucket): "Bucket \(bucket) does not exist."
        case .projectNotFound(let project): "Project \(project) does not exist."
        case .quotaExceeded(let bucket, _): "Quota for bucket \(bucket) exceeded, please view quota on firebase.google.com."
        case .unauthenticated:
            "User is not authenticated, please authenticate using Firebase Authentication and try again."
        case .unauthorized(let bucket, let object, _): "User does not have permission to access gs://\(bucket)/\(object)."
        case .retryLimitExceeded: "Max retry time for operation exceeded, please try again."
        case .nonMatchingChecksum:
            "Uploaded/downloaded object has a checksum which does not match the server's checksum. Please retry the upload/download."
        case .downloadSizeExceeded(let total, let maxSize):
            "Attempted to download object with size of \(total) bytes, which exceeds the maximum size of \(maxSize) bytes. Consider raising the maximum download maxSize, or using StorageReference.write"
        case .cancelled: "User cancelled the upload/download."
        }
    }

    public static var errorDomain: String { StorageErrorDomain }
    public var errorCode: Int { code.rawValue }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] =
            switch self {
            case .unknown(_, let serverError), .objectNotFound(_, let serverError), .quotaExceeded(_, let serverError),
                .unauthenticated(let serverError), .unauthorized(_, _, let serverError):
                serverError
            case .downloadSizeExceeded(let total, let maxSize): ["totalSize": total, "maxAllowedSize": maxSize]
            default: [:]
            }
        info[NSLocalizedDescriptionKey] = errorDescription
        return info
    }

    /// The error of an HTTP answer with `status` and `body` for `reference` (spec storage-api §8.1).
    init(status: UInt, body: String, reference: StorageReference) {
        var serverError: [String: Any] = ["ResponseErrorCode": Int(status), "ResponseBody": body, "bucket": reference.bucket]
        if !reference.fullPath.isEmpty { serverError["object"] = reference.fullPath }
        // Firebase's name for the object of the bucket's root.
        let object = reference.fullPath.isEmpty ? "<object-entity-internal-error>" : reference.fullPath
        switch status {
        case 400: self = .unknown(message: "Unknown 400 error from backend", serverError: serverError)
        case 401: self = .unauthenticated(serverError: serverError)
        case 402: self = .quotaExceeded(bucket: reference.bucket, serverError: serverError)
        case 403: self = .unauthorized(bucket: reference.bucket, object: object, serverError: serverError)
        case 404: self = .objectNotFound(object: object, serverError: serverError)
        default: self = .unknown(message: "Unexpected \(status) code from backend", serverError: serverError)
        }
    }

    /// The error of a request that got no answer: the connection failed or dropped, and retries
    /// (if any) ran out of time.
    static func network(_ error: any Error) -> StorageError {
        let underlying = error as NSError
        return .unknown(
            message: "The request got no answer from the server: \(error)",
            serverError: [
                "ResponseErrorDomain": underlying.domain, "ResponseErrorCode": underlying.code, NSUnderlyingErrorKey: underlying,
            ])
    }

    /// The error of an answer that is not what the API promises.
    static func invalidAnswer(_ body: String) -> StorageError {
        .unknown(message: "Invalid data returned from the server: \(body)", serverError: [:])
    }
}

extension StorageErrorCode {
    /// The code of a caught error, as `StorageErrorCode(rawValue: error._code)` reads it.
    public init?(_ error: any Error) {
        self.init(rawValue: (error as NSError).code)
    }
}
