/// An expression of the rules language, as parsed.
indirect enum RulesExpression: Sendable {
    case literal(StorageRulesValue)
    case variable(String)
    case list([RulesExpression])
    case map([(key: RulesExpression, value: RulesExpression)])
    /// A path literal: text segments and `$(…)` interpolations.
    case path([PathLiteralPart])
    case member(RulesExpression, String)
    case index(RulesExpression, RulesExpression)
    case slice(RulesExpression, from: RulesExpression?, to: RulesExpression?)
    /// `target.name(arguments)`.
    case method(RulesExpression, String, [RulesExpression])
    /// `name(arguments)`: a function of the file or a global one (`path`, `int`, …).
    case call(String, [RulesExpression])
    /// `math.abs(x)`, `duration.value(1, 'h')`, …
    case namespaced(namespace: String, name: String, [RulesExpression])
    case not(RulesExpression)
    case negate(RulesExpression)
    case binary(BinaryOperator, RulesExpression, RulesExpression)
    case and(RulesExpression, RulesExpression)
    case or(RulesExpression, RulesExpression)
    case conditional(RulesExpression, then: RulesExpression, else: RulesExpression)
    case isType(RulesExpression, String)
}

/// A part of a path literal.
enum PathLiteralPart: Sendable {
    case text(String)
    case interpolation(RulesExpression)
}

/// The binary operators other than `&&` and `||`.
enum BinaryOperator: String, Sendable {
    case multiply = "*"
    case divide = "/"
    case remainder = "%"
    case add = "+"
    case subtract = "-"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case equal = "=="
    case notEqual = "!="
    case `in` = "in"
}

/// `function name(parameters) { let …; return … }`.
struct RulesFunction: Sendable {
    var name: String
    var parameters: [String]
    var bindings: [(name: String, value: RulesExpression)]
    var body: RulesExpression
    /// Where the declaration starts, for load errors.
    var offset: Int
    /// The names this function calls by bare name.
    var callees: Set<String>
}

/// `allow methods: if condition;`.
struct AllowStatement: Sendable {
    /// As written: `read`, `write`, `get`, `list`, `create`, `update`, `delete`.
    var methods: [String]
    /// `nil` when the statement has no condition (always allows).
    var condition: RulesExpression?
    /// The statement as written, for explanations: `line 4: allow write: if …`.
    var summary: String

    func covers(_ method: StorageRuleMethod) -> Bool {
        methods.contains(method.rawValue) || methods.contains(method.umbrella)
    }
}

/// A `match` block, or the `service` block itself (with an empty path).
struct MatchBlock: Sendable {
    var path: [MatchSegment]
    var functions: [String: RulesFunction] = [:]
    var allows: [AllowStatement] = []
    var children: [MatchBlock] = []
}

/// The global functions and namespaces of the language.
enum RulesBuiltins {
    static let functions: Set<String> = ["path", "int", "float", "string", "bool", "debug"]
    static let namespaces: Set<String> = ["math", "duration", "timestamp", "hashing", "firestore", "latlng"]
    /// The functions of each namespace Hearth evaluates.
    static let namespaceFunctions: [String: Set<String>] = [
        "math": ["abs", "ceil", "floor", "round", "sqrt", "pow", "isInfinite", "isNaN"],
        "duration": ["value", "time", "abs"],
        "timestamp": ["date", "value"],
        "hashing": ["md5", "sha256"],
    ]
    static let types: Set<String> = [
        "string", "int", "float", "number", "bool", "null", "list", "map", "set", "timestamp", "duration", "path", "bytes",
        "map_diff", "latlng",
    ]
}
