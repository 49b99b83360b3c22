/// A JSON number as Firebase stores it: an integer when it fits in 64 bits, a double otherwise.
///
/// Comparison is mathematical across the two cases (`2 == 2.0`, and `2^53 + 1 > 2^53` even
/// though their doubles are equal).
public enum Number: Sendable, Hashable, Comparable, CustomStringConvertible {
    case int(Int64)
    case double(Double)

    /// The value as a double, as hashing and JavaScript clients see it.
    public var doubleValue: Double {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        }
    }

    /// `self + other` with Firebase's increment semantics: integer arithmetic while it neither
    /// overflows nor involves a double, IEEE double arithmetic otherwise.
    public func adding(_ other: Number) -> Number {
        if case .int(let left) = self, case .int(let right) = other {
            let (sum, overflow) = left.addingReportingOverflow(right)
            if !overflow { return .int(sum) }
        }
        return .double(doubleValue + other.doubleValue)
    }

    /// JSON text: integral values without a fractional part, other values in the shortest form
    /// that reads back as the same double.
    public var description: String {
        switch self {
        case .int(let value):
            return String(value)
        case .double(let value):
            if value == value.rounded(.towardZero), abs(value) < 9.007_199_254_740_992e15 {
                return String(Int64(value))
            }
            return value.description
        }
    }

    public static func == (lhs: Number, rhs: Number) -> Bool {
        compare(lhs, rhs) == 0
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(doubleValue)
    }

    public static func < (lhs: Number, rhs: Number) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// -1, 0 or 1, comparing the mathematical values.
    public static func compare(_ lhs: Number, _ rhs: Number) -> Int {
        switch (lhs, rhs) {
        case (.int(let left), .int(let right)):
            return left < right ? -1 : (left == right ? 0 : 1)
        case (.double(let left), .double(let right)):
            return left < right ? -1 : (left == right ? 0 : 1)
        case (.int(let left), .double(let right)):
            return compare(integer: left, double: right)
        case (.double(let left), .int(let right)):
            return -compare(integer: right, double: left)
        }
    }

    private static func compare(integer: Int64, double: Double) -> Int {
        if double >= 9.223_372_036_854_775_808e18 { return -1 }
        if double < -9.223_372_036_854_775_808e18 { return 1 }
        let whole = double.rounded(.down)
        let wholeInteger = Int64(whole)
        if integer != wholeInteger { return integer < wholeInteger ? -1 : 1 }
        return double > whole ? -1 : 0
    }
}
