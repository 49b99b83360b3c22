import HearthCore

/// Why the database refused a request. Transports map each case to Firebase's status and text.
public enum DatabaseError: Error, Sendable, Equatable {
    /// The path has an invalid key or is too deep.
    case invalidPath
    /// The written data is invalid.
    case invalidData(DataError)
    /// A multi-path update names a path inside another of its paths.
    case overlappingUpdatePaths
    /// A query ordered by a child or by value, where the rules declare no `.indexOn` for it.
    case indexNotDefined(QueryIndex, DatabasePath)
    /// The namespace name is not one Hearth can store.
    case invalidNamespace(String)
    /// The namespace does not exist, and this request may not create it (production mode).
    case namespaceNotFound(String)
    /// The rules do not allow the operation. The explanation (which rules were evaluated, and
    /// how they came out) is there for callers who asked for security debugging.
    case permissionDenied(explanation: String?)
    /// The durable store failed.
    case unavailable(String)
    /// The write log does not reach back to the time asked for (the message says why).
    case historyNotKept(String)
    /// Another node of the cluster owns the namespace; it serves clients at this `host:port`.
    /// REST answers with a redirect there, the realtime protocol with its reset message.
    case servedElsewhere(String)
    /// The node that owns the namespace refused a write a relay passed on, with this text (a
    /// refusal by the rules is ``permissionDenied(explanation:)``, as on the owner).
    case refusedByOwner(String)

    /// Firebase's text for this error.
    public var message: String {
        switch self {
        case .invalidPath:
            "Invalid path: Invalid token in path"
        case .invalidData(let error):
            error.message
        case .overlappingUpdatePaths:
            "Invalid data; a multi-path update may not contain a path and another path below it."
        case .indexNotDefined(let index, let path):
            "Index not defined, add \".indexOn\": \"\(index.indexOnName ?? index.description)\", for path \"\(path)\", to the rules"
        case .invalidNamespace(let name):
            "Invalid namespace \"\(name)\": use letters, digits, '-' and '_' only."
        case .namespaceNotFound:
            "404 Not Found"
        case .permissionDenied:
            "Permission denied"
        case .unavailable:
            "Internal server error."
        case .historyNotKept(let reason):
            reason
        case .servedElsewhere(let address):
            "The namespace is served by the node at \(address)."
        case .refusedByOwner(let text):
            text
        }
    }
}
