import HearthCore

/// What the deploy-time checker knows of an expression's type.
enum RuleType: Sendable, Equatable {
    case boolean, number, string, null, snapshot
    /// `auth` and its members: an object or null whose members are known only at run time.
    case object
    /// `val()`, `getPriority()`, query bounds: a value known only at run time.
    case value
    /// A conditional whose branches have different known types.
    case mixed

    /// Whether the type is only known at run time, so any use is checked then.
    var isUnknown: Bool { self == .object || self == .value }

    var name: String {
        switch self {
        case .boolean: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .null: "null"
        case .snapshot: "a snapshot"
        case .object: "an object"
        case .value: "a value"
        case .mixed: "of mixed type"
        }
    }
}

/// An expression ready to evaluate: a closure tree built once when the rules load.
typealias CompiledExpression = @Sendable (RuleEnvironment) throws(RuleFailure) -> RuleValue

/// The kind of rule an expression belongs to, which decides the variables it may use.
public enum RuleKind: String, Sendable {
    case read = ".read"
    case write = ".write"
    case validate = ".validate"
}

/// Type-checks a rule expression as Firebase does when rules are deployed, and compiles it to
/// closures.
///
/// Everything statically wrong is refused here (unknown variables and methods, snapshots
/// compared with values, wrong argument types, non-boolean rules); what only the data can
/// decide (`auth.uid.length`, `data.val() + 1`) is checked during evaluation and makes the rule
/// fail without granting.
struct RuleCompiler {
    typealias Compiled = (type: RuleType, evaluate: CompiledExpression)

    let kind: RuleKind
    /// The `$` wildcards in scope, outermost first; a capture's index is its place here.
    let captures: [String]

    /// Parses, checks and compiles `source`, which must be boolean-typed.
    static func compile(_ source: String, kind: RuleKind, captures: [String]) throws(RuleSyntaxError) -> CompiledExpression {
        let syntax = try RuleParser.parse(source)
        let compiled = try RuleCompiler(kind: kind, captures: captures).compile(syntax)
        guard compiled.type == .boolean || compiled.type.isUnknown else {
            throw RuleSyntaxError(offset: 0, "the rule must evaluate to a boolean, but this expression is \(compiled.type.name)")
        }
        return compiled.evaluate
    }

    func compile(_ syntax: RuleSyntax) throws(RuleSyntaxError) -> Compiled {
        switch syntax {
        case .null: return (.null, { _ in .null })
        case .bool(let value): return (.boolean, { _ in .bool(value) })
        case .number(let value): return (.number, { _ in .number(value) })
        case .string(let value): return (.string, { _ in .string(value) })
        case .regex(_, _, let offset):
            throw RuleSyntaxError(offset: offset, "a regular expression may only be the argument of matches()")
        case .array(_, let offset):
            throw RuleSyntaxError(offset: offset, "an array may only be the argument of hasChildren()")
        case .variable(let name, let offset):
            return try variable(name, offset: offset)
        case .member(let target, let name, let offset):
            return try member(target, name, offset: offset)
        case .subscripted(let target, let key, let offset):
            return try subscripted(target, key, offset: offset)
        case .call(let callee, let arguments, let offset):
            return try call(callee, arguments, offset: offset)
        case .unary(let symbol, let operand, let offset):
            return try unary(symbol, operand, offset: offset)
        case .binary(let symbol, let left, let right, let offset):
            return try binary(symbol, left, right, offset: offset)
        case .conditional(let condition, let whenTrue, let whenFalse, let offset):
            return try conditional(condition, whenTrue, whenFalse, offset: offset)
        }
    }

    // MARK: Variables and members

    private func variable(_ name: String, offset: Int) throws(RuleSyntaxError) -> Compiled {
        switch name {
        case "auth": return (.object, { $0.auth })
        case "now": return (.number, { $0.now })
        case "root": return (.snapshot, { .snapshot($0.root) })
        case "data": return (.snapshot, { .snapshot($0.data) })
        case "newData" where kind != .read: return (.snapshot, { .snapshot($0.newData) })
        case "newData": throw RuleSyntaxError(offset: offset, "newData is not available in .read rules")
        case "query" where kind == .read:
            throw RuleSyntaxError(offset: offset, "query may only be used through its members, such as query.limitToFirst")
        default:
            if let index = captures.lastIndex(of: name) {
                return (.string, { .string($0.captures[index]) })
            }
            throw RuleSyntaxError(offset: offset, "unknown variable '\(name)'")
        }
    }

    private func member(_ target: RuleSyntax, _ name: String, offset: Int) throws(RuleSyntaxError) -> Compiled {
        if case .variable("query", _) = target, kind == .read {
            guard let read = QueryVariables.member(name) else {
                throw RuleSyntaxError(offset: offset, "query has no member '\(name)'")
            }
            let type: RuleType = name.hasPrefix("orderBy") && name != "orderByChild" ? .boolean : .value
            return (type, { read($0.query) })
        }
        let compiled = try compile(target)
        switch compiled.type {
        case .object:
            return (.object, { environment throws(RuleFailure) in try Self.member(of: compiled.evaluate(environment), name) })
        case .string where name == "length", .value where name == "length":
            return (
                compiled.type == .string ? .number : .value,
                { environment throws(RuleFailure) in
                    try Self.member(of: compiled.evaluate(environment), name)
                }
            )
        case .snapshot:
            throw RuleSyntaxError(offset: offset, "snapshots have no property '\(name)'; snapshot methods must be called, as in \(name)()")
        default:
            throw RuleSyntaxError(offset: offset, "\(compiled.type.name) has no property '\(name)'")
        }
    }

    private func subscripted(_ target: RuleSyntax, _ key: RuleSyntax, offset: Int) throws(RuleSyntaxError) -> Compiled {
        let compiled = try compile(target)
        guard compiled.type == .object || compiled.type == .value else {
            throw RuleSyntaxError(offset: offset, "\(compiled.type.name) cannot be indexed with []")
        }
        let keyCompiled = try compile(key)
        guard [.string, .number].contains(keyCompiled.type) || keyCompiled.type.isUnknown else {
            throw RuleSyntaxError(offset: offset, "a [] index must be a string or a number")
        }
        return (
            .object,
            { environment throws(RuleFailure) in
                let container = try compiled.evaluate(environment)
                switch try keyCompiled.evaluate(environment) {
                case .string(let name): return try Self.member(of: container, name)
                case .number(let index): return try Self.member(of: container, RuleValue.javaScriptText(of: index))
                case let other: throw RuleFailure("a [] index must be a string or a number, not \(other.typeName)")
                }
            }
        )
    }

    /// `value.name` at run time: null for any member of null, object members, string length.
    static func member(of value: RuleValue, _ name: String) throws(RuleFailure) -> RuleValue {
        switch value {
        case .null:
            return .null
        case .object(.object(let members)):
            return members.last { $0.key == name }.map { RuleValue($0.value) } ?? .null
        case .object(.array(let elements)):
            guard let index = Int(name), elements.indices.contains(index) else { return .null }
            return RuleValue(elements[index])
        case .string(let string) where name == "length":
            return .number(Double(string.utf16.count))
        default:
            throw RuleFailure("cannot read property '\(name)' of \(value.typeName) \(value.summary)")
        }
    }

    // MARK: Operators

    private func unary(_ symbol: String, _ operand: RuleSyntax, offset: Int) throws(RuleSyntaxError) -> Compiled {
        let compiled = try compile(operand)
        if symbol == "!" {
            try require(compiled.type, in: [.boolean], for: "!", offset: offset)
            return (
                .boolean,
                { environment throws(RuleFailure) in
                    .bool(!(try Self.boolean(compiled.evaluate(environment), for: "!")))
                }
            )
        }
        try require(compiled.type, in: [.number], for: "unary -", offset: offset)
        return (
            .number,
            { environment throws(RuleFailure) in
                guard case .number(let value) = try compiled.evaluate(environment) else {
                    throw RuleFailure("unary - needs a number")
                }
                return .number(-value)
            }
        )
    }

    private func binary(_ symbol: String, _ left: RuleSyntax, _ right: RuleSyntax, offset: Int) throws(RuleSyntaxError) -> Compiled {
        let lhs = try compile(left)
        let rhs = try compile(right)
        let l = lhs.evaluate
        let r = rhs.evaluate
        switch symbol {
        case "&&", "||":
            try require(lhs.type, in: [.boolean], for: symbol, offset: offset)
            try require(rhs.type, in: [.boolean], for: symbol, offset: offset)
            let stopsOn = symbol == "||"
            return (
                .boolean,
                { environment throws(RuleFailure) in
                    if try Self.boolean(l(environment), for: symbol) == stopsOn { return .bool(stopsOn) }
                    return .bool(try Self.boolean(r(environment), for: symbol))
                }
            )
        case "==", "===", "!=", "!==":
            guard lhs.type != .snapshot, rhs.type != .snapshot else {
                throw RuleSyntaxError(offset: offset, "snapshots cannot be compared with \(symbol); use exists() or val()")
            }
            let equal = symbol.hasPrefix("=")
            return (
                .boolean,
                { environment throws(RuleFailure) in
                    .bool(try l(environment).strictlyEquals(r(environment)) == equal)
                }
            )
        case "<", "<=", ">", ">=":
            try require(lhs.type, in: [.number, .string, .null], for: symbol, offset: offset)
            try require(rhs.type, in: [.number, .string, .null], for: symbol, offset: offset)
            return (
                .boolean,
                { environment throws(RuleFailure) in
                    let order = try Self.order(l(environment), r(environment), for: symbol)
                    switch symbol {
                    case "<": return .bool(order == .some(-1))
                    case "<=": return .bool(order == .some(-1) || order == .some(0))
                    case ">": return .bool(order == .some(1))
                    default: return .bool(order == .some(1) || order == .some(0))
                    }
                }
            )
        case "+":
            try require(lhs.type, in: [.number, .string], for: "+", offset: offset)
            try require(rhs.type, in: [.number, .string], for: "+", offset: offset)
            let type: RuleType =
                lhs.type == .number && rhs.type == .number ? .number : (lhs.type == .string || rhs.type == .string ? .string : .value)
            return (type, { environment throws(RuleFailure) in try Self.add(l(environment), r(environment)) })
        default:
            try require(lhs.type, in: [.number], for: symbol, offset: offset)
            try require(rhs.type, in: [.number], for: symbol, offset: offset)
            return (
                .number,
                { environment throws(RuleFailure) in
                    guard case .number(let a) = try l(environment), case .number(let b) = try r(environment) else {
                        throw RuleFailure("\(symbol) needs two numbers")
                    }
                    switch symbol {
                    case "-": return .number(a - b)
                    case "*": return .number(a * b)
                    case "/": return .number(a / b)
                    default: return .number(a.truncatingRemainder(dividingBy: b))
                    }
                }
            )
        }
    }

    private func conditional(
        _ condition: RuleSyntax, _ whenTrue: RuleSyntax, _ whenFalse: RuleSyntax, offset: Int
    ) throws(RuleSyntaxError) -> Compiled {
        let test = try compile(condition)
        try require(test.type, in: [.boolean], for: "?:", offset: offset)
        let first = try compile(whenTrue)
        let second = try compile(whenFalse)
        let type: RuleType =
            first.type == second.type ? first.type : (first.type.isUnknown || second.type.isUnknown ? .value : .mixed)
        return (
            type,
            { environment throws(RuleFailure) in
                try Self.boolean(test.evaluate(environment), for: "?:") ? try first.evaluate(environment) : try second.evaluate(environment)
            }
        )
    }

    /// Refuses an operand whose known type is not among `allowed`; unknown types pass.
    func require(_ type: RuleType, in allowed: [RuleType], for operation: String, offset: Int) throws(RuleSyntaxError) {
        guard allowed.contains(type) || type.isUnknown else {
            throw RuleSyntaxError(offset: offset, "\(operation) cannot be applied to \(type.name)")
        }
    }

    static func boolean(_ value: RuleValue, for operation: String) throws(RuleFailure) -> Bool {
        guard case .bool(let bool) = value else {
            throw RuleFailure("\(operation) needs a boolean, not \(value.typeName) \(value.summary)")
        }
        return bool
    }

    /// -1, 0, 1 for two numbers or two strings; `nil` when unordered (NaN).
    private static func order(_ left: RuleValue, _ right: RuleValue, for symbol: String) throws(RuleFailure) -> Int? {
        switch (left, right) {
        case (.number(let a), .number(let b)):
            return a < b ? -1 : (a > b ? 1 : (a == b ? 0 : nil))
        case (.string(let a), .string(let b)):
            return UTF16Order.compare(a, b)
        default:
            throw RuleFailure("\(symbol) needs two numbers or two strings, not \(left.typeName) and \(right.typeName)")
        }
    }

    private static func add(_ left: RuleValue, _ right: RuleValue) throws(RuleFailure) -> RuleValue {
        if case .number(let a) = left, case .number(let b) = right { return .number(a + b) }
        if case .string = left, let a = left.concatenationText, let b = right.concatenationText { return .string(a + b) }
        if case .string = right, let a = left.concatenationText, let b = right.concatenationText { return .string(a + b) }
        throw RuleFailure("+ needs numbers or strings, not \(left.typeName) and \(right.typeName)")
    }
}
