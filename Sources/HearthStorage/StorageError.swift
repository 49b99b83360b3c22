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
}

/// A Storage error, as the Firebase Apple SDK reports it: a ``StorageErrorCode`` in the
/// `FIRStorageErrorDomain`, with the server's answer when there was one.
public struct StorageError: Error, CustomNSError, LocalizedError, Sendable {
    public let code: StorageErrorCode
    /// What went wrong, in Firebase's words.
    public let message: String
    /// The server's answer body, if any.
    public let serverResponse: String?

    init(_ code: StorageErrorCode, _ message: String, serverResponse: String? = nil) {
        self.code = code
        self.message = message
        self.serverResponse = serverResponse
    }

    public static var errorDomain: String { "FIRStorageErrorDomain" }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let serverResponse { info["ResponseBody"] = serverResponse }
        return info
    }
    public var errorDescription: String? { message }

    /// The error of an HTTP answer with `status` for `reference` (spec storage-api §8.1).
    init(status: UInt, body: String, reference: StorageReference) {
        let location = "gs://\(reference.bucket)/\(reference.fullPath)"
        switch status {
        case 401:
            self.init(
                .unauthenticated, "User is not authenticated, please authenticate using Firebase Authentication and try again.",
                serverResponse: body)
        case 402:
            self.init(
                .quotaExceeded, "Quota for bucket \(reference.bucket) exceeded, please view quota on firebase.google.com.",
                serverResponse: body)
        case 403: self.init(.unauthorized, "User does not have permission to access \(location).", serverResponse: body)
        case 404: self.init(.objectNotFound, "Object \(reference.fullPath) does not exist.", serverResponse: body)
        default: self.init(.unknown, "An unknown error occurred, please check the server response.", serverResponse: body)
        }
    }

    static func cancelled(_ reference: StorageReference) -> StorageError {
        StorageError(.cancelled, "User cancelled the upload/download.")
    }

    static func network(_ error: any Error) -> StorageError {
        StorageError(.retryLimitExceeded, "Max retry time for operation exceeded, please try again. (\(error))")
    }
}

extension StorageErrorCode {
    /// The code of a caught error, as `StorageErrorCode(rawValue: error._code)` reads it.
    public init?(_ error: any Error) {
        self.init(rawValue: (error as NSError).code)
    }
}
