/// The syntax tree of a rule expression, before it is type-checked and compiled.
indirect enum RuleSyntax: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case regex(pattern: String, flags: String, offset: Int)
    case array([RuleSyntax], offset: Int)
    /// A predefined variable or `$` capture.
    case variable(String, offset: Int)
    /// `target.name`.
    case member(RuleSyntax, String, offset: Int)
    /// `target[key]`.
    case subscripted(RuleSyntax, RuleSyntax, offset: Int)
    /// `callee(arguments)`.
    case call(RuleSyntax, [RuleSyntax], offset: Int)
    case unary(String, RuleSyntax, offset: Int)
    case binary(String, RuleSyntax, RuleSyntax, offset: Int)
    case conditional(RuleSyntax, RuleSyntax, RuleSyntax, offset: Int)
}

/// Reads a rule expression by recursive descent, with JavaScript's precedence: member access and
/// calls, unary `! -`, `* / %`, `+ -`, relations, equality, `&&`, `||`, then `?:`.
struct RuleParser {
    private let tokens: [RuleToken]
    private var index = 0

    static func parse(_ expression: String) throws(RuleSyntaxError) -> RuleSyntax {
        var parser = RuleParser(tokens: try RuleLexer.tokens(of: expression))
        let syntax = try parser.conditional()
        guard case .end = parser.current.kind else {
            throw RuleSyntaxError(offset: parser.current.offset, "unexpected \(parser.current.kind.description) after the expression")
        }
        return syntax
    }

    private init(tokens: [RuleToken]) {
        self.tokens = tokens
    }

    /// Nesting beyond this is refused rather than risking the stack.
    private static let maximumDepth = 200
    /// Operators beyond this are refused: compiling and evaluating recurse once per operator.
    private static let maximumOperators = 2_000
    private var depth = 0
    private var operators = 0

    /// Counts one operator, member access or call.
    private mutating func countOperator(at offset: Int) throws(RuleSyntaxError) {
        operators += 1
        guard operators <= Self.maximumOperators else {
            throw RuleSyntaxError(offset: offset, "the expression has more than \(Self.maximumOperators) operators")
        }
    }

    private var current: RuleToken { tokens[index] }

    private mutating func take(_ symbol: String) -> Bool {
        guard case .symbol(symbol) = current.kind else { return false }
        index += 1
        return true
    }

    private mutating func expect(_ symbol: String) throws(RuleSyntaxError) {
        guard take(symbol) else {
            throw RuleSyntaxError(offset: current.offset, "expected '\(symbol)' but found \(current.kind.description)")
        }
    }

    private mutating func conditional() throws(RuleSyntaxError) -> RuleSyntax {
        depth += 1
        defer { depth -= 1 }
        guard depth < Self.maximumDepth else { throw RuleSyntaxError(offset: current.offset, "the expression is nested too deeply") }
        let offset = current.offset
        let condition = try binary(level: 0)
        guard take("?") else { return condition }
        try countOperator(at: offset)
        let whenTrue = try conditional()
        try expect(":")
        let whenFalse = try conditional()
        return .conditional(condition, whenTrue, whenFalse, offset: offset)
    }

    /// Binary operators by precedence, loosest first; all associate to the left.
    private static let levels: [[String]] = [
        ["||"], ["&&"], ["==", "!=", "===", "!=="], ["<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%"],
    ]

    private mutating func binary(level: Int) throws(RuleSyntaxError) -> RuleSyntax {
        guard level < Self.levels.count else { return try unary() }
        var left = try binary(level: level + 1)
        while case .symbol(let symbol) = current.kind, Self.levels[level].contains(symbol) {
            let offset = current.offset
            index += 1
            try countOperator(at: offset)
            let right = try binary(level: level + 1)
            left = .binary(symbol, left, right, offset: offset)
        }
        return left
    }

    private mutating func unary() throws(RuleSyntaxError) -> RuleSyntax {
        let offset = current.offset
        if case .symbol(let symbol) = current.kind, symbol == "!" || symbol == "-" { try countOperator(at: offset) }
        if take("!") { return .unary("!", try nestedUnary(), offset: offset) }
        if take("-") { return .unary("-", try nestedUnary(), offset: offset) }
        return try postfix()
    }

    private mutating func nestedUnary() throws(RuleSyntaxError) -> RuleSyntax {
        depth += 1
        defer { depth -= 1 }
        guard depth < Self.maximumDepth else { throw RuleSyntaxError(offset: current.offset, "the expression is nested too deeply") }
        return try unary()
    }

    private mutating func postfix() throws(RuleSyntaxError) -> RuleSyntax {
        var syntax = try primary()
        while true {
            let offset = current.offset
            if case .symbol(let symbol) = current.kind, [".", "[", "("].contains(symbol) { try countOperator(at: offset) }
            if take(".") {
                guard case .identifier(let name) = current.kind, !name.hasPrefix("$") else {
                    throw RuleSyntaxError(offset: current.offset, "expected a property or method name after '.'")
                }
                index += 1
                syntax = .member(syntax, name, offset: offset)
            } else if take("[") {
                let key = try conditional()
                try expect("]")
                syntax = .subscripted(syntax, key, offset: offset)
            } else if take("(") {
                var arguments: [RuleSyntax] = []
                if !take(")") {
                    repeat { arguments.append(try conditional()) } while take(",")
                    try expect(")")
                }
                syntax = .call(syntax, arguments, offset: offset)
            } else {
                return syntax
            }
        }
    }

    private mutating func primary() throws(RuleSyntaxError) -> RuleSyntax {
        let token = current
        index += 1
        switch token.kind {
        case .number(let value): return .number(value)
        case .string(let value): return .string(value)
        case .regex(let pattern, let flags): return .regex(pattern: pattern, flags: flags, offset: token.offset)
        case .identifier("true"): return .bool(true)
        case .identifier("false"): return .bool(false)
        case .identifier("null"): return .null
        case .identifier(let name): return .variable(name, offset: token.offset)
        case .symbol("("):
            let inner = try conditional()
            try expect(")")
            return inner
        case .symbol("["):
            var elements: [RuleSyntax] = []
            if !take("]") {
                repeat { elements.append(try conditional()) } while take(",")
                try expect("]")
            }
            return .array(elements, offset: token.offset)
        case .symbol, .end:
            throw RuleSyntaxError(offset: token.offset, "expected a value but found \(token.kind.description)")
        }
    }
}

extension RuleToken.Kind {
    var description: String {
        switch self {
        case .number(let value): "the number \(value)"
        case .string: "a string"
        case .regex: "a regular expression"
        case .identifier(let name): "'\(name)'"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end of the expression"
        }
    }
}
