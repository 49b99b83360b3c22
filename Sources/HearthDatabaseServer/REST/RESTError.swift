import Hummingbird

/// A REST failure: the status and the `error` text Firebase answers with.
struct RESTError: Error, Sendable, Equatable {
    var status: HTTPResponse.Status
    var message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    static func badRequest(_ message: String) -> RESTError { RESTError(.badRequest, message) }

    static let invalidPath = RESTError.badRequest(DatabaseError.invalidPath.message)

    init(_ error: DatabaseError) {
        switch error {
        case .unavailable: self.init(.internalServerError, error.message)
        case .permissionDenied: self.init(.unauthorized, error.message)
        case .namespaceNotFound: self.init(.notFound, error.message)
        default: self.init(.badRequest, error.message)
        }
    }
}
