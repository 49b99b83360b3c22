import HearthCore

/// One `.read`, `.write` or `.validate` rule, compiled.
public struct RuleCondition: Sendable {
    public let kind: RuleKind
    /// The expression as written (`true` and `false` for the JSON booleans).
    public let source: String
    /// Where the rule's key stands in the rules file.
    public let position: SourcePosition
    /// The `$` variables the rule can see (`$uid`), outermost first.
    public let variableNames: [String]
    let evaluate: CompiledExpression

    init(_ member: JSONMember, kind: RuleKind, captures: [String]) throws(RulesError) {
        switch member.value {
        case .bool(let value): source = String(value)
        case .string(let text): source = text
        default: throw RulesError(member.position, "\(kind.rawValue) must be a boolean or a string expression")
        }
        self.kind = kind
        self.position = member.position
        self.variableNames = captures
        do {
            evaluate = try RuleCompiler.compile(source, kind: kind, captures: captures)
        } catch {
            throw RulesError(member.position, "\(kind.rawValue): \(error.problem) (at character \(error.offset + 1) of \"\(source)\")")
        }
    }

    /// Whether the rule grants in `environment`, and how it came out: only exactly `true` grants;
    /// false, another value and a run-time error do not.
    func outcome(in environment: RuleEnvironment) -> RuleOutcome {
        do {
            switch try evaluate(environment) {
            case .bool(true): return .granted
            case .bool(false): return .false
            case let other: return .notBoolean(other.summary)
            }
        } catch {
            return .failed(error.problem)
        }
    }
}

/// How one rule evaluation came out.
public enum RuleOutcome: Sendable, Equatable, CustomStringConvertible {
    case granted
    case `false`
    /// The expression produced a value that is not a boolean.
    case notBoolean(String)
    /// Evaluation failed (a method on null, a type error).
    case failed(String)

    public var description: String {
        switch self {
        case .granted: "true"
        case .false: "false"
        case .notBoolean(let value): "not a boolean: \(value)"
        case .failed(let problem): "error: \(problem)"
        }
    }
}
