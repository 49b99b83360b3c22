/// A value to write at a location: built into a ``Node`` ahead of time when nothing in it
/// depends on the moment it is applied, else kept as JSON.
///
/// Building a large value (validating every key, sorting every object) costs time in
/// proportion to its size; doing it before the write reaches its namespace's single writer
/// keeps that writer, and every reader waiting on it, free meanwhile. Server values
/// (`{".sv": …}`) resolve against the data and the clock at the moment of the write, so a value
/// holding one stays JSON and is built then.
public enum WriteValue: Sendable {
    /// A value already built and validated for its location.
    case node(Node)
    /// A value to build when it is applied.
    case json(JSONValue)

    /// The value of `json` written at `path`: built now unless it holds a server value or the
    /// path names a priority. Throws what building would throw: invalid keys, too deep, …
    public static func prepare(_ json: JSONValue, at path: DatabasePath) throws(DataError) -> WriteValue {
        guard path.priorityOwner == nil else { return .json(json) }
        return try prepare(json, atDepth: path.count)
    }

    /// The value of `json` written as a new child of `parent` (a push).
    public static func prepare(_ json: JSONValue, forChildOf parent: DatabasePath) throws(DataError) -> WriteValue {
        try prepare(json, atDepth: parent.count + 1)
    }

    private static func prepare(_ json: JSONValue, atDepth depth: Int) throws(DataError) -> WriteValue {
        guard !containsServerValue(json) else { return .json(json) }
        return .node(try NodeBuilder(timestamp: 0).build(json, atDepth: depth, existing: .null))
    }

    /// `null`: removes the node (or, at a priority path, the priority).
    public static let null = WriteValue.json(.null)

    private static func containsServerValue(_ json: JSONValue) -> Bool {
        switch json {
        case .null, .bool, .number, .string: false
        case .array(let elements): elements.contains(where: containsServerValue)
        case .object(let members): members.contains { $0.key == ".sv" || containsServerValue($0.value) }
        }
    }
}
