/// A parsed JSON document, before it becomes database data.
///
/// Objects keep their members in source order with the position of each key, so that an invalid
/// key can be reported the way Firebase reports it (`couldn't parse key beginning at 3:7`).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Number)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The member named `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// Whether the value is null, a boolean, a number or a string.
    public var isPrimitive: Bool {
        switch self {
        case .null, .bool, .number, .string: true
        case .array, .object: false
        }
    }
}

/// One `"key": value` pair of a JSON object. Two members are equal when key and value are; the
/// position only serves error messages.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue
    /// Where the key's opening quote stands in the source.
    public var position: SourcePosition

    public init(key: String, value: JSONValue, position: SourcePosition = SourcePosition(line: 1, column: 1)) {
        self.key = key
        self.value = value
        self.position = position
    }

    public static func == (lhs: JSONMember, rhs: JSONMember) -> Bool {
        lhs.key == rhs.key && lhs.value == rhs.value
    }
}

/// A 1-based line and column in a JSON source.
public struct SourcePosition: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}
