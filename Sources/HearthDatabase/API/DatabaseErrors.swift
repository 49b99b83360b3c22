import Foundation

/// The errors the database hands to completion blocks, as the Firebase Apple SDK makes them:
/// `NSError`s in the `com.firebase` domain, code 1 for `permission_denied`, 2 `unavailable`,
/// 3 `write_canceled`, 9999 for anything else, described by the server's reason when it gave one.
enum DatabaseErrors {
    static let domain = "com.firebase"

    /// The error for a server status (`permission_denied`, `datastale`, …) and optional reason.
    static func error(status: String, reason: String? = nil) -> NSError {
        let code: Int
        let fallback: String
        switch status {
        case "permission_denied": (code, fallback) = (1, "Permission Denied")
        case "unavailable": (code, fallback) = (2, "Service is unavailable")
        case "write_canceled": (code, fallback) = (3, "Write cancelled by user")
        case "disconnect": (code, fallback) = (9999, "The connection was lost before the server answered")
        default: (code, fallback) = (9999, status)
        }
        let description = reason.flatMap { $0.isEmpty ? nil : $0 } ?? fallback
        return NSError(domain: domain, code: code, userInfo: [NSLocalizedDescriptionKey: description])
    }

    /// The error a refused or revoked listen gives its observers' cancel blocks.
    static var listenCancelled: NSError { error(status: "permission_denied") }

    /// A value or path the app passed that Firebase would refuse.
    static func invalidArgument(_ message: String) -> NSError {
        NSError(domain: domain, code: 9999, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
