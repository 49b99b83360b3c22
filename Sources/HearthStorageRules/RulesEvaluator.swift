/// The `match` blocks on the way to an `allow` statement, outermost (the service) first, with
/// the wildcards each bound.
struct MatchLevel: Sendable {
    var functions: [String: RulesFunction]
    var bindings: [String: StorageRulesValue]
}

/// What an expression can see: the levels of the match chain visible to it, and the parameters
/// and `let` bindings of the function it is in (kept as results: a binding that fails is an
/// error only where it is used).
struct RulesScope {
    var depth: Int
    var locals: [String: Result<StorageRulesValue, RulesEvaluationError>] = [:]
    var callDepth = 0
}

/// The steps one request's evaluation may take (path matching and expressions together), so
/// that rules whose cost grows with the path or with nested calls cannot stall the server.
final class RulesBudget {
    private(set) var remaining: Int

    init(steps: Int = 100_000) {
        remaining = steps
    }

    /// Takes one step; false once none are left.
    func spend() -> Bool {
        remaining -= 1
        return remaining >= 0
    }

    static let exhausted = RulesEvaluationError("the rules took more steps than one request may use")
}

/// Evaluates expressions for one request (spec storage-api §13–§15).
struct RulesEvaluator {
    /// `request` and `resource`.
    let globals: [String: StorageRulesValue]
    let levels: [MatchLevel]
    let budget: RulesBudget

    /// How deeply functions may call one another.
    static let maximumCallDepth = 10

    func evaluate(_ expression: RulesExpression, in scope: RulesScope) throws(RulesEvaluationError) -> StorageRulesValue {
        guard budget.spend() else { throw RulesBudget.exhausted }
        switch expression {
        case .literal(let value):
            return value
        case .variable(let name):
            return try lookUp(name, in: scope)
        case .list(let elements):
            var values: [StorageRulesValue] = []
            for element in elements { values.append(try evaluate(element, in: scope)) }
            return .list(values)
        case .map(let entries):
            var map: [String: StorageRulesValue] = [:]
            for entry in entries {
                guard case .string(let key) = try evaluate(entry.key, in: scope) else {
                    throw RulesEvaluationError("map keys must be strings")
                }
                map[key] = try evaluate(entry.value, in: scope)
            }
            return .map(map)
        case .path(let parts):
            var segments: [String] = []
            for part in parts {
                switch part {
                case .text(let text): segments.append(text)
                case .interpolation(let inner): segments += try pathSegments(of: evaluate(inner, in: scope))
                }
            }
            return .path(segments)
        case .member(let target, let name):
            return try member(name, of: evaluate(target, in: scope))
        case .index(let target, let index):
            return try subscripted(evaluate(target, in: scope), by: evaluate(index, in: scope))
        case .slice(let target, let from, let to):
            return try sliced(
                evaluate(target, in: scope), from: from.map { e throws(RulesEvaluationError) in try evaluate(e, in: scope) },
                to: to.map { e throws(RulesEvaluationError) in try evaluate(e, in: scope) })
        case .method(let target, let name, let arguments):
            return try callMethod(name, on: evaluate(target, in: scope), with: evaluateAll(arguments, in: scope))
        case .call(let name, let arguments):
            return try call(name, arguments, in: scope)
        case .namespaced(let namespace, let name, let arguments):
            return try callNamespaced(namespace, name, with: evaluateAll(arguments, in: scope))
        case .not(let operand):
            guard case .bool(let value) = try evaluate(operand, in: scope) else { throw RulesEvaluationError("'!' needs a bool") }
            return .bool(!value)
        case .negate(let operand):
            return try negated(evaluate(operand, in: scope))
        case .binary(let op, let left, let right):
            return try apply(op, evaluate(left, in: scope), evaluate(right, in: scope))
        case .and(let left, let right):
            return try combine(left, right, in: scope, decisive: false)
        case .or(let left, let right):
            return try combine(left, right, in: scope, decisive: true)
        case .conditional(let condition, let then, let otherwise):
            guard case .bool(let value) = try evaluate(condition, in: scope) else {
                throw RulesEvaluationError("the condition of '?:' must be a bool")
            }
            return try evaluate(value ? then : otherwise, in: scope)
        case .isType(let operand, let type):
            return .bool(Self.value(try evaluate(operand, in: scope), isOfType: type))
        }
    }

    private func evaluateAll(_ expressions: [RulesExpression], in scope: RulesScope) throws(RulesEvaluationError) -> [StorageRulesValue] {
        var values: [StorageRulesValue] = []
        for expression in expressions { values.append(try evaluate(expression, in: scope)) }
        return values
    }

    /// `&&` (`decisive` false) and `||` (`decisive` true): the side equal to `decisive` decides,
    /// even when the other side is an error (spec storage-api §13).
    private func combine(
        _ left: RulesExpression, _ right: RulesExpression, in scope: RulesScope, decisive: Bool
    ) throws(RulesEvaluationError) -> StorageRulesValue {
        let name = decisive ? "||" : "&&"
        let leftValue = Result { () throws(RulesEvaluationError) in try evaluate(left, in: scope) }
        if case .success(.bool(decisive)) = leftValue { return .bool(decisive) }
        let rightValue = Result { () throws(RulesEvaluationError) in try evaluate(right, in: scope) }
        if case .success(.bool(decisive)) = rightValue { return .bool(decisive) }
        switch (leftValue, rightValue) {
        case (.success(.bool), .success(.bool)): return .bool(!decisive)
        case (.failure(let error), _), (_, .failure(let error)): throw error
        default: throw RulesEvaluationError("'\(name)' needs bools")
        }
    }

    private func lookUp(_ name: String, in scope: RulesScope) throws(RulesEvaluationError) -> StorageRulesValue {
        if let local = scope.locals[name] { return try local.get() }
        for level in levels[..<scope.depth].reversed() {
            if let value = level.bindings[name] { return value }
        }
        if let value = globals[name] { return value }
        throw RulesEvaluationError("unknown variable '\(name)'")
    }

    /// A function of the file visible from `scope`, or a global one.
    private func call(_ name: String, _ arguments: [RulesExpression], in scope: RulesScope) throws(RulesEvaluationError)
        -> StorageRulesValue
    {
        var declaringDepth = scope.depth
        var function: RulesFunction?
        while declaringDepth > 0, function == nil {
            function = levels[declaringDepth - 1].functions[name]
            if function == nil { declaringDepth -= 1 }
        }
        let values = try evaluateAll(arguments, in: scope)
        guard let function else { return try callGlobal(name, with: values) }
        guard values.count == function.parameters.count else {
            throw RulesEvaluationError("\(name)() takes \(function.parameters.count) arguments, not \(values.count)")
        }
        guard scope.callDepth < Self.maximumCallDepth else {
            throw RulesEvaluationError("function calls nest deeper than \(Self.maximumCallDepth)")
        }
        var inner = RulesScope(depth: declaringDepth, callDepth: scope.callDepth + 1)
        for (parameter, value) in zip(function.parameters, values) { inner.locals[parameter] = .success(value) }
        for binding in function.bindings {
            let scopeSoFar = inner
            inner.locals[binding.name] = Result { () throws(RulesEvaluationError) in try evaluate(binding.value, in: scopeSoFar) }
        }
        return try evaluate(function.body, in: inner)
    }

    private func pathSegments(of value: StorageRulesValue) throws(RulesEvaluationError) -> [String] {
        switch value {
        case .path(let segments): return segments
        case .string(let string): return string.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        case .int(let number): return [String(number)]
        default: throw RulesEvaluationError("a \(value.typeName) cannot be part of a path")
        }
    }

    static func value(_ value: StorageRulesValue, isOfType type: String) -> Bool {
        switch (type, value) {
        case ("number", .int), ("number", .float): true
        default: value.typeName == type
        }
    }
}
