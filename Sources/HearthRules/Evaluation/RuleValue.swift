import HearthCore

/// A value during rule evaluation.
///
/// Numbers are IEEE doubles, as in JavaScript. Objects come from `auth` and from `val()` of a
/// node with children; snapshots from `root`, `data`, `newData` and their methods.
enum RuleValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case object(JSONValue)
    case snapshot(RuleSnapshot)

    /// The value of a JSON document (`auth`): arrays and objects stay objects.
    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let number): self = .number(number.doubleValue)
        case .string(let value): self = .string(value)
        case .array, .object: self = .object(json)
        }
    }

    init(_ leaf: LeafValue) {
        switch leaf {
        case .bool(let value): self = .bool(value)
        case .number(let number): self = .number(number.doubleValue)
        case .string(let value): self = .string(value)
        }
    }

    /// `==`: no coercion; different types are unequal; objects compare by content.
    func strictlyEquals(_ other: RuleValue) -> Bool {
        switch (self, other) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.number(let left), .number(let right)): left == right
        case (.string(let left), .string(let right)): left.isIdentical(to: right)
        case (.object(let left), .object(let right)): Self.sameContent(left, right)
        default: false
        }
    }

    private static func sameContent(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.object(let leftMembers), .object(let rightMembers)):
            guard leftMembers.count == rightMembers.count else { return false }
            return leftMembers.allSatisfy { member in
                rightMembers.first { $0.key == member.key }.map { sameContent(member.value, $0.value) } ?? false
            }
        case (.array(let leftElements), .array(let rightElements)):
            return leftElements.count == rightElements.count && zip(leftElements, rightElements).allSatisfy(sameContent)
        default:
            return RuleValue(left).strictlyEquals(RuleValue(right))
        }
    }

    /// The value as JavaScript's `String()` writes it, for concatenation with `+`.
    var concatenationText: String? {
        switch self {
        case .string(let value): value
        case .number(let value): Self.javaScriptText(of: value)
        default: nil
        }
    }

    static func javaScriptText(of number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        if number == number.rounded(), abs(number) < 1e21 { return String(Int64(number)) }
        return "\(number)"
    }

    /// A short description for denial explanations and run-time errors: at most 200 bytes of
    /// a string or an object, rendered no further, since any client can make rules fail on
    /// values of any size.
    var summary: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .number(let value): Self.javaScriptText(of: value)
        case .string(let value): JSONWriter.abbreviation(of: JSONValue.string(value), maximumBytes: Self.summaryBytes)
        case .object(let json): JSONWriter.abbreviation(of: json, maximumBytes: Self.summaryBytes)
        case .snapshot(let snapshot): "snapshot of \(snapshot.path)"
        }
    }

    /// How much of a value explanations and errors show.
    static let summaryBytes = 200

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .object: "object"
        case .snapshot: "snapshot"
        }
    }
}

/// Why an evaluation failed at run time (a method called on null, a type error): the rule does
/// not grant.
struct RuleFailure: Error, Sendable {
    var problem: String
    init(_ problem: String) { self.problem = problem }
}
