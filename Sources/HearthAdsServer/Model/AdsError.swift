/// Why an ads request was refused, with the status and message it is answered with.
package enum AdsError: Error, Equatable, Sendable {
    /// The body is not JSON.
    case malformedJSON
    /// A field is missing, of the wrong type or out of range: `field` names it as a path
    /// (`size.w`, `targeting.platforms[1]`).
    case invalidField(field: String, reason: String)
    /// No ad unit has this id.
    case unknownAdUnit(String)
    /// No object of this kind (`adUnit`, `creative`, `campaign`) has this id.
    case notFound(kind: String, id: String)
    /// An ad unit with this id exists already.
    case alreadyExists(String)
    /// The object `id` cannot be removed while these campaigns name it.
    case inUse(id: String, campaigns: [String])
    /// An uploaded image that creatives show cannot be removed.
    case imageInUse(hash: String, creatives: [String])
    /// The body is larger than the endpoint takes.
    case bodyTooLarge(limit: Int)
    /// The admin endpoints need an admin credential.
    case permissionDenied
    case methodNotAllowed(allowed: String)
    case noSuchEndpoint
    /// The ads service cannot answer now (its store failed, or it is moving between the nodes
    /// of a cluster): the request may be retried.
    case unavailable(String)

    /// The HTTP status.
    var status: Int {
        switch self {
        case .malformedJSON, .invalidField: 400
        case .permissionDenied: 403
        case .unknownAdUnit, .notFound, .noSuchEndpoint: 404
        case .methodNotAllowed: 405
        case .alreadyExists, .inUse, .imageInUse: 409
        case .bodyTooLarge: 413
        case .unavailable: 503
        }
    }

    /// The status name, as Google's APIs give it.
    var statusName: String {
        switch self {
        case .malformedJSON, .invalidField: "INVALID_ARGUMENT"
        case .permissionDenied: "PERMISSION_DENIED"
        case .unknownAdUnit, .notFound, .noSuchEndpoint: "NOT_FOUND"
        case .methodNotAllowed: "METHOD_NOT_ALLOWED"
        case .alreadyExists: "ALREADY_EXISTS"
        case .inUse, .imageInUse: "FAILED_PRECONDITION"
        case .bodyTooLarge: "PAYLOAD_TOO_LARGE"
        case .unavailable: "UNAVAILABLE"
        }
    }

    var message: String {
        switch self {
        case .malformedJSON: "The request body is not valid JSON."
        case .invalidField(let field, let reason): "Invalid value at '\(field)': \(reason)"
        case .unknownAdUnit(let id): "No ad unit '\(id)'."
        case .notFound(let kind, let id): "No \(kind) '\(id)'."
        case .alreadyExists(let id): "'\(id)' exists already."
        case .inUse(let id, let campaigns): "'\(id)' is used by campaigns \(campaigns.joined(separator: ", "))."
        case .imageInUse(let hash, let creatives): "Image '\(hash)' is shown by creatives \(creatives.joined(separator: ", "))."
        case .bodyTooLarge(let limit): "The request body is larger than \(limit) bytes."
        case .permissionDenied: "The ads admin API needs an admin credential."
        case .methodNotAllowed(let allowed): "Method not allowed: use \(allowed)."
        case .noSuchEndpoint: "No such ads endpoint."
        case .unavailable(let reason): reason
        }
    }

    /// The field an invalid value was found at, if any.
    var field: String? {
        if case .invalidField(let field, _) = self { return field }
        return nil
    }
}
