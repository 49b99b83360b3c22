/// Expressions, by precedence from lowest to highest (spec storage-api §15): `?:`, `||`, `&&`,
/// `== !=`, `< <= > >= in is`, `+ -`, `* / %`, unary `! -`, then `.member`, `[index]`,
/// `[from:to]` and calls.
extension RulesParser {
    mutating func parseExpression() throws(StorageRulesError) -> RulesExpression {
        try enterNesting()
        defer { leaveNesting() }
        let condition = try parseOr()
        guard try consume("?") else { return condition }
        let then = try parseExpression()
        try expect(":")
        return .conditional(condition, then: then, else: try parseExpression())
    }

    private mutating func parseOr() throws(StorageRulesError) -> RulesExpression {
        var left = try parseAnd()
        let start = nestingDepth
        defer { restoreNesting(to: start) }
        while try consume("||") {
            try enterNesting()
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws(StorageRulesError) -> RulesExpression {
        var left = try parseEquality()
        let start = nestingDepth
        defer { restoreNesting(to: start) }
        while try consume("&&") {
            try enterNesting()
            left = .and(left, try parseEquality())
        }
        return left
    }

    private mutating func parseEquality() throws(StorageRulesError) -> RulesExpression {
        var left = try parseRelational()
        let start = nestingDepth
        defer { restoreNesting(to: start) }
        while true {
            try enterNesting()
            if try consume("==") {
                left = .binary(.equal, left, try parseRelational())
            } else if try consume("!=") {
                left = .binary(.notEqual, left, try parseRelational())
            } else {
                return left
            }
        }
    }

    private mutating func parseRelational() throws(StorageRulesError) -> RulesExpression {
        var left = try parseAdditive()
        let start = nestingDepth
        defer { restoreNesting(to: start) }
        while true {
            try enterNesting()
            let (token, _) = try peek()
            switch token {
            case .symbol("<"), .symbol("<="), .symbol(">"), .symbol(">="):
                guard case .symbol(let symbol) = token, let op = BinaryOperator(rawValue: symbol) else { return left }
                _ = try advance()
                left = .binary(op, left, try parseAdditive())
            case .identifier("in"):
                _ = try advance()
                left = .binary(.in, left, try parseAdditive())
            case .identifier("is"):
                _ = try advance()
                let offset = try peek().offset
                let type = try identifier("a type name")
                guard RulesBuiltins.types.contains(type) else { throw scanner.error("unknown type '\(type)'", at: offset) }
                left = .isType(left, type)
            default:
                return left
            }
        }
    }

    private mutating func parseAdditive() throws(StorageRulesError) -> RulesExpression {
        var left = try parseMultiplicative()
        let start = nestingDepth
        defer { restoreNesting(to: start) }
        while true {
            try enterNesting()
            if try consume("+") {
                left = .binary(.add, left, try parseMultiplicative())
            } else if try consume("-") {
                left = .binary(.subtract, left, try parseMultiplicative())
            } else {
                return left
            }
        }
    }

    private mutating func parseMultiplicative() throws(StorageRulesError) -> RulesExpression {
        var left = try parseUnary()
        let start = nestingDepth
        defer { restoreNesting(to: start) }
        while true {
            try enterNesting()
            if try consume("*") {
                left = .binary(.multiply, left, try parseUnary())
            } else if try consume("/") {
                left = .binary(.divide, left, try parseUnary())
            } else if try consume("%") {
                left = .binary(.remainder, left, try parseUnary())
            } else {
                return left
            }
        }
    }

    private mutating func parseUnary() throws(StorageRulesError) -> RulesExpression {
        try enterNesting()
        defer { leaveNesting() }
        if try consume("!") { return .not(try parseUnary()) }
        if try consume("-") { return .negate(try parseUnary()) }
        return try parsePostfix()
    }

    private mutating func parsePostfix() throws(StorageRulesError) -> RulesExpression {
        let start = try peek().offset
        var expression = try parsePrimary()
        let depth = nestingDepth
        defer { restoreNesting(to: depth) }
        while true {
            try enterNesting()
            if try consume(".") {
                let name = try identifier("a member name")
                guard try consume("(") else {
                    expression = .member(expression, name)
                    continue
                }
                let arguments = try parseArguments()
                if case .variable(let namespace) = expression, RulesBuiltins.namespaces.contains(namespace) {
                    guard namespace != "firestore" else {
                        throw scanner.error(
                            "firestore.\(name)() is not available: Hearth has no Firestore database for rules to read", at: start)
                    }
                    guard RulesBuiltins.namespaceFunctions[namespace]?.contains(name) == true else {
                        throw scanner.error("\(namespace).\(name)() is not available in Hearth's storage rules", at: start)
                    }
                    expression = .namespaced(namespace: namespace, name: name, arguments)
                } else {
                    expression = .method(expression, name, arguments)
                }
            } else if try consume("[") {
                expression = try parseSubscript(of: expression)
            } else {
                return expression
            }
        }
    }

    /// After `[`: an index, or a slice with either bound left out.
    private mutating func parseSubscript(of target: RulesExpression) throws(StorageRulesError) -> RulesExpression {
        var from: RulesExpression?
        if try peek().token != .symbol(":") {
            let index = try parseExpression()
            if try consume("]") { return .index(target, index) }
            from = index
        }
        try expect(":")
        let to = try peek().token == .symbol("]") ? nil : try parseExpression()
        try expect("]")
        return .slice(target, from: from, to: to)
    }

    /// After `(`: comma-separated arguments and the `)`.
    private mutating func parseArguments() throws(StorageRulesError) -> [RulesExpression] {
        var arguments: [RulesExpression] = []
        if try consume(")") { return arguments }
        repeat { arguments.append(try parseExpression()) } while try consume(",")
        try expect(")")
        return arguments
    }

    private mutating func parsePrimary() throws(StorageRulesError) -> RulesExpression {
        let (token, offset) = try advance()
        switch token {
        case .int(let value): return .literal(.int(value))
        case .float(let value): return .literal(.float(value))
        case .string(let value): return .literal(.string(value))
        case .bytes(let value): return .literal(.bytes(value))
        case .identifier("true"): return .literal(.bool(true))
        case .identifier("false"): return .literal(.bool(false))
        case .identifier("null"): return .literal(.null)
        case .identifier(let name):
            guard !["if", "in", "is", "let", "return", "allow", "match", "function"].contains(name) else {
                throw scanner.error("expected an expression, found '\(name)'", at: offset)
            }
            guard try consume("(") else { return .variable(name) }
            recordCall(name, at: offset)
            return .call(name, try parseArguments())
        case .symbol("("):
            let inner = try parseExpression()
            try expect(")")
            return inner
        case .symbol("["):
            var elements: [RulesExpression] = []
            if try consume("]") { return .list(elements) }
            repeat { elements.append(try parseExpression()) } while try consume(",")
            try expect("]")
            return .list(elements)
        case .symbol("{"):
            var entries: [(key: RulesExpression, value: RulesExpression)] = []
            if try consume("}") { return .map(entries) }
            repeat {
                let key = try parseExpression()
                try expect(":")
                entries.append((key, try parseExpression()))
            } while try consume(",")
            try expect("}")
            return .map(entries)
        case .symbol("/"):
            return try parsePathLiteral()
        default:
            throw scanner.error("expected an expression, found \(token.spelling)", at: offset)
        }
    }

    /// After the first `/` of a path literal: `/users/$(request.auth.uid)/file`.
    private mutating func parsePathLiteral() throws(StorageRulesError) -> RulesExpression {
        var parts: [PathLiteralPart] = []
        repeat {
            if consumeRaw("$(") {
                parts.append(.interpolation(try parseExpression()))
                try expect(")")
            } else {
                let segmentStart = scanner.position
                let text = readPathLiteralText()
                guard !text.isEmpty else { throw scanner.error("empty segment in path literal", at: segmentStart) }
                parts.append(.text(text))
            }
        } while consumeRaw("/")
        return .path(parts)
    }
}
