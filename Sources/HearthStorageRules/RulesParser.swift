/// Parses a storage rules file into its `service` block (spec storage-api §10, §11, §15).
///
/// The first problem stops the parse with its line and column.
struct RulesParser {
    var scanner: RulesScanner
    private var peeked: (token: RulesToken, offset: Int, end: Int)?
    /// Where the last consumed token ends.
    private(set) var consumedEnd = 0
    private(set) var version = 1
    private(set) var warnings: [String] = []
    /// Per open block, the functions called by bare name in it and not yet found: resolved
    /// against the block's functions when it closes, the rest passed to the enclosing block.
    private var unresolvedCalls: [[(name: String, offset: Int)]] = []
    /// Every function of the file, for the recursion check.
    private var functions: [RulesFunction] = []
    private var nesting = 0

    /// How deeply expressions and blocks may nest.
    static let maximumNesting = 200

    init(source: String) {
        scanner = RulesScanner(source)
    }

    /// The whole file: an optional `rules_version`, then one `service firebase.storage` block.
    mutating func parseFile() throws(StorageRulesError) -> MatchBlock {
        if case .identifier("rules_version") = try peek().token {
            _ = try advance()
            try expect("=")
            let (token, offset) = try advance()
            switch token {
            case .string("1"): version = 1
            case .string("2"): version = 2
            default: throw scanner.error("rules_version must be '1' or '2'", at: offset)
            }
            try expect(";")
        }
        let (keyword, offset) = try advance()
        guard keyword == .identifier("service") else {
            throw scanner.error("expected 'service firebase.storage', found \(keyword.spelling)", at: offset)
        }
        let nameOffset = try peek().offset
        let name = try parseDottedName()
        switch name {
        case "firebase.storage": break
        case "cloud.storage":
            warnings.append("line \(scanner.line(of: nameOffset)): 'service cloud.storage' is read as 'service firebase.storage'")
        default:
            throw scanner.error("storage rules must be in 'service firebase.storage', not '\(name)'", at: nameOffset)
        }
        let service = try parseBlock(path: [])
        let (trailing, trailingOffset) = try advance()
        guard trailing == .end else {
            throw scanner.error("expected the end of the file after the service block, found \(trailing.spelling)", at: trailingOffset)
        }
        try refuseRecursion()
        return service
    }

    private mutating func parseDottedName() throws(StorageRulesError) -> String {
        var parts = [try identifier("a service name")]
        while try peek().token == .symbol(".") {
            _ = try advance()
            parts.append(try identifier("a service name"))
        }
        return parts.joined(separator: ".")
    }

    /// `{ … }` holding `match`, `allow` and `function` statements.
    private mutating func parseBlock(path: [MatchSegment]) throws(StorageRulesError) -> MatchBlock {
        try expect("{")
        try enterNesting()
        defer { leaveNesting() }
        unresolvedCalls.append([])
        var block = MatchBlock(path: path)
        while true {
            let (token, offset) = try advance()
            switch token {
            case .symbol("}"):
                try resolveCalls(of: block)
                return block
            case .identifier("match"):
                if version == 1, case .rest? = path.last {
                    throw scanner.error(
                        "with rules_version '1', a match path ending in {name=**} cannot hold nested match blocks", at: offset)
                }
                let segments = try scanner.readMatchPath()
                try checkWildcards(segments, at: offset)
                block.children.append(try parseBlock(path: segments))
            case .identifier("allow"):
                guard !path.isEmpty else { throw scanner.error("'allow' must be inside a 'match' block", at: offset) }
                block.allows.append(try parseAllow(at: offset))
            case .identifier("function"):
                let function = try parseFunction(at: offset)
                guard block.functions[function.name] == nil else {
                    throw scanner.error("function '\(function.name)' is declared twice in one block", at: offset)
                }
                block.functions[function.name] = function
                functions.append(function)
            default:
                throw scanner.error("expected 'match', 'allow', 'function' or '}', found \(token.spelling)", at: offset)
            }
        }
    }

    /// Closes the calls of `block`: those naming its functions are resolved; the others go to
    /// the enclosing block, or, at the service block, must be global functions.
    private mutating func resolveCalls(of block: MatchBlock) throws(StorageRulesError) {
        let open = unresolvedCalls.removeLast().filter { block.functions[$0.name] == nil }
        guard unresolvedCalls.isEmpty else {
            unresolvedCalls[unresolvedCalls.count - 1] += open
            return
        }
        if let unknown = open.first(where: { !RulesBuiltins.functions.contains($0.name) }) {
            throw scanner.error("unknown function '\(unknown.name)'", at: unknown.offset)
        }
    }

    /// Functions may not call themselves, directly or through others (spec storage-api §15).
    private func refuseRecursion() throws(StorageRulesError) {
        var callees: [String: Set<String>] = [:]
        for function in functions { callees[function.name, default: []].formUnion(function.callees) }
        for function in functions {
            var seen: Set<String> = []
            var pending = Array(function.callees)
            while let name = pending.popLast() {
                if name == function.name {
                    throw scanner.error("function '\(function.name)' calls itself; rules functions may not recurse", at: function.offset)
                }
                if seen.insert(name).inserted { pending += callees[name] ?? [] }
            }
        }
    }

    private func checkWildcards(_ segments: [MatchSegment], at offset: Int) throws(StorageRulesError) {
        let restIndices = segments.indices.filter { if case .rest = segments[$0] { true } else { false } }
        guard restIndices.count <= 1 else {
            throw scanner.error("a match path may hold only one {name=**} wildcard", at: offset)
        }
        if version == 1, let index = restIndices.first, index != segments.count - 1 {
            throw scanner.error("with rules_version '1', {name=**} must be the last segment of a match path", at: offset)
        }
    }

    private mutating func parseAllow(at start: Int) throws(StorageRulesError) -> AllowStatement {
        var methods: [String] = []
        repeat {
            let offset = try peek().offset
            let method = try identifier("a method")
            guard ["read", "write", "get", "list", "create", "update", "delete"].contains(method) else {
                throw scanner.error("unknown method '\(method)'; use read, write, get, list, create, update or delete", at: offset)
            }
            methods.append(method)
        } while try consume(",")
        var condition: RulesExpression?
        if try consume(":") {
            let (keyword, offset) = try advance()
            guard keyword == .identifier("if") else { throw scanner.error("expected 'if' after ':'", at: offset) }
            condition = try parseExpression()
        }
        let end = consumedEnd
        if try peek().token == .symbol(";") {
            _ = try advance()
        } else if try peek().token != .symbol("}") {
            throw scanner.error("expected ';' after the allow statement, found \(try peek().token.spelling)", at: try peek().offset)
        }
        let summary = "line \(scanner.line(of: start)): \(scanner.text(from: start, to: end))"
        return AllowStatement(methods: methods, condition: condition, summary: summary)
    }

    private mutating func parseFunction(at offset: Int) throws(StorageRulesError) -> RulesFunction {
        let callsBefore = unresolvedCalls[unresolvedCalls.count - 1].count
        let name = try identifier("a function name")
        try expect("(")
        var parameters: [String] = []
        if !(try consume(")")) {
            repeat { parameters.append(try identifier("a parameter name")) } while try consume(",")
            try expect(")")
        }
        try expect("{")
        var bindings: [(name: String, value: RulesExpression)] = []
        while true {
            let (keyword, keywordOffset) = try advance()
            if keyword == .identifier("let") {
                guard version == 2 else { throw scanner.error("'let' needs rules_version = '2'", at: keywordOffset) }
                let binding = try identifier("a variable name")
                try expect("=")
                bindings.append((binding, try parseExpression()))
                try expect(";")
            } else if keyword == .identifier("return") {
                let body = try parseExpression()
                _ = try consume(";")
                try expect("}")
                let callees = Set(unresolvedCalls[unresolvedCalls.count - 1][callsBefore...].map(\.name))
                return RulesFunction(
                    name: name, parameters: parameters, bindings: bindings, body: body, offset: offset, callees: callees)
            } else {
                throw scanner.error("expected 'let' or 'return' in function '\(name)', found \(keyword.spelling)", at: keywordOffset)
            }
        }
    }

    // MARK: Tokens

    mutating func peek() throws(StorageRulesError) -> (token: RulesToken, offset: Int) {
        if let peeked { return (peeked.token, peeked.offset) }
        let (token, offset) = try scanner.next()
        peeked = (token, offset, scanner.position)
        return (token, offset)
    }

    mutating func advance() throws(StorageRulesError) -> (RulesToken, Int) {
        let next = try peek()
        consumedEnd = peeked!.end
        peeked = nil
        return next
    }

    /// Consumes `symbol` if it comes next.
    mutating func consume(_ symbol: String) throws(StorageRulesError) -> Bool {
        guard try peek().token == .symbol(symbol) else { return false }
        _ = try advance()
        return true
    }

    mutating func expect(_ symbol: String) throws(StorageRulesError) {
        let (token, offset) = try peek()
        guard token == .symbol(symbol) else { throw scanner.error("expected '\(symbol)', found \(token.spelling)", at: offset) }
        _ = try advance()
    }

    mutating func identifier(_ what: String) throws(StorageRulesError) -> String {
        let (token, offset) = try advance()
        guard case .identifier(let name) = token else { throw scanner.error("expected \(what), found \(token.spelling)", at: offset) }
        return name
    }

    mutating func enterNesting() throws(StorageRulesError) {
        nesting += 1
        guard nesting <= Self.maximumNesting else {
            throw scanner.error("rules nest more than \(Self.maximumNesting) levels deep", at: scanner.position)
        }
    }

    mutating func leaveNesting() {
        nesting -= 1
    }

    /// How deeply the parse is nested now.
    var nestingDepth: Int { nesting }

    /// Undoes the nesting a chain of binary operators or postfixes added.
    mutating func restoreNesting(to depth: Int) {
        nesting = depth
    }

    mutating func recordCall(_ name: String, at offset: Int) {
        unresolvedCalls[unresolvedCalls.count - 1].append((name, offset))
    }

    /// Reads raw path-literal text where the scanner stands; nothing may be peeked.
    mutating func readPathLiteralText() -> String {
        let text = scanner.readPathLiteralText()
        consumedEnd = scanner.position
        return text
    }

    /// Consumes `text` where the scanner stands, without skipping trivia; nothing may be peeked.
    mutating func consumeRaw(_ text: String) -> Bool {
        guard scanner.consume(text) else { return false }
        consumedEnd = scanner.position
        return true
    }
}
