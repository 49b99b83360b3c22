/// The value of a leaf node: a boolean, a number or a string.
public enum LeafValue: Sendable, Hashable {
    case bool(Bool)
    case number(Number)
    case string(String)

    /// Strings are equal when their bytes are (see ``Swift/String/isIdentical(to:)``).
    public static func == (lhs: LeafValue, rhs: LeafValue) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let left), .bool(let right)): left == right
        case (.number(let left), .number(let right)): left == right
        case (.string(let left), .string(let right)): left.isIdentical(to: right)
        default: false
        }
    }
}

/// A node's priority: a number or a string. Priorities order children under `orderByPriority`.
public enum Priority: Sendable, Hashable, Comparable {
    case number(Number)
    case string(String)

    /// Strings are equal when their bytes are (see ``Swift/String/isIdentical(to:)``).
    public static func == (lhs: Priority, rhs: Priority) -> Bool {
        lhs.leafValue == rhs.leafValue
    }

    /// Numbers before strings; numbers numerically, strings by UTF-16 code units.
    public static func < (lhs: Priority, rhs: Priority) -> Bool {
        switch (lhs, rhs) {
        case (.number(let left), .number(let right)): left < right
        case (.number, .string): true
        case (.string, .number): false
        case (.string(let left), .string(let right)): UTF16Order.precedes(left, right)
        }
    }

    /// The priority as a leaf value, the form queries and hashing compare.
    public var leafValue: LeafValue {
        switch self {
        case .number(let number): .number(number)
        case .string(let string): .string(string)
        }
    }
}
