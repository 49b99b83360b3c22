import HearthCore
import HearthEdge

/// What a REST URL path addresses.
enum RESTTarget: Equatable {
    /// `/<path>.json`: data at a location.
    case data(DatabasePath)
    /// `/.settings/rules.json`: the namespace's rules document.
    case rules
    /// `/.inspect/databases.json`: the namespaces that exist.
    case databases
    /// `/.history/<path>.json`: the writes of a location, and the location as it was.
    case history(DatabasePath)
    /// Anything that does not end in `.json`.
    case notFound

    /// Parses a raw (percent-encoded) URL path. Segments are percent-decoded, empty segments are
    /// ignored, and a trailing slash before `.json` is accepted (`/users/ada/.json`). A last
    /// segment `.priority` names the priority of the node before it (`/users/ada/.priority.json`).
    static let historyPrefix = "/.history"

    static func parse(_ rawPath: String) throws(RESTError) -> RESTTarget {
        guard rawPath.hasSuffix(".json") else { return .notFound }
        let withoutSuffix = String(rawPath.dropLast(".json".count))
        switch withoutSuffix {
        case "/.settings/rules": return .rules
        case "/.inspect/databases": return .databases
        default: break
        }
        if withoutSuffix == historyPrefix || withoutSuffix.hasPrefix(historyPrefix + "/") {
            guard case .data(let path) = try parse(String(withoutSuffix.dropFirst(historyPrefix.count)) + ".json") else {
                return .notFound
            }
            return .history(path)
        }
        var keys: [ChildKey] = []
        var segments = withoutSuffix.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        let namesPriority = segments.last.map { $0.elementsEqual(DatabasePath.priorityKey.string.utf8) } ?? false
        if namesPriority { segments.removeLast() }
        for segment in segments {
            guard let decoded = PercentDecoding.decode(segment, plusIsSpace: false), KeyValidation.isValidKey(decoded) else {
                throw .invalidPath
            }
            keys.append(ChildKey(decoded))
        }
        guard keys.count <= KeyValidation.maximumDepth else { throw .invalidPath }
        let path = DatabasePath(validatedKeys: keys)
        return .data(namesPriority ? path.child(DatabasePath.priorityKey) : path)
    }
}
