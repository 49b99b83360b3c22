/// One lexical element of a rule expression, with the character offset it starts at.
struct RuleToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case number(Double)
        case string(String)
        /// A regular-expression literal `/pattern/flags`.
        case regex(pattern: String, flags: String)
        /// A name: a predefined variable, a `$` capture, a method or property, `true`, `false`,
        /// `null`.
        case identifier(String)
        /// An operator or punctuation mark.
        case symbol(String)
        case end
    }

    var kind: Kind
    /// The offset, in characters from the start of the expression, of the token's first character.
    var offset: Int
}

/// Splits a rule expression into tokens.
///
/// A `/` starts a regular-expression literal where an operand is expected (after an operator, an
/// opening bracket, a comma or at the start) and is the division operator elsewhere, as in
/// JavaScript.
struct RuleLexer {
    private let characters: [Character]
    private var offset = 0
    private var tokens: [RuleToken] = []

    /// Operators, longest first so that `===` is not read as `==` then `=`.
    private static let symbols = [
        "===", "!==", "==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", ".", ",", "?", ":", "!", "+", "-", "*",
        "/", "%", "<", ">",
    ]

    static func tokens(of expression: String) throws(RuleSyntaxError) -> [RuleToken] {
        var lexer = RuleLexer(characters: Array(expression))
        try lexer.run()
        return lexer.tokens
    }

    private init(characters: [Character]) {
        self.characters = characters
    }

    private mutating func run() throws(RuleSyntaxError) {
        while true {
            while offset < characters.count, characters[offset].isWhitespace { offset += 1 }
            guard offset < characters.count else { break }
            let start = offset
            let character = characters[offset]
            if character.isNumber && character.isASCII {
                tokens.append(RuleToken(kind: .number(try number()), offset: start))
            } else if character == "\"" || character == "'" {
                tokens.append(RuleToken(kind: .string(try string(quote: character)), offset: start))
            } else if character.isLetter || character == "_" || character == "$" {
                while offset < characters.count,
                    characters[offset].isLetter || characters[offset].isNumber || characters[offset] == "_"
                        || characters[offset] == "$"
                {
                    offset += 1
                }
                tokens.append(RuleToken(kind: .identifier(String(characters[start..<offset])), offset: start))
            } else if character == "/" && expectsOperand {
                let (pattern, flags) = try regex()
                tokens.append(RuleToken(kind: .regex(pattern: pattern, flags: flags), offset: start))
            } else {
                tokens.append(RuleToken(kind: .symbol(try symbol()), offset: start))
            }
        }
        tokens.append(RuleToken(kind: .end, offset: characters.count))
    }

    /// Whether the previous token leaves the expression waiting for an operand.
    private var expectsOperand: Bool {
        switch tokens.last?.kind {
        case nil: true
        case .symbol(let symbol)?: symbol != ")" && symbol != "]"
        default: false
        }
    }

    private mutating func symbol() throws(RuleSyntaxError) -> String {
        for symbol in Self.symbols where matches(symbol) {
            offset += symbol.count
            if symbol == "*", offset < characters.count, characters[offset] == "*" {
                throw RuleSyntaxError(offset: offset - 1, "the ** operator is not supported")
            }
            return symbol
        }
        let character = characters[offset]
        switch character {
        case "=": throw RuleSyntaxError(offset: offset, "assignment is not allowed; compare with ==")
        case ";": throw RuleSyntaxError(offset: offset, "a rule is a single expression; ';' is not allowed")
        default: throw RuleSyntaxError(offset: offset, "unexpected character '\(character)'")
        }
    }

    private func matches(_ symbol: String) -> Bool {
        var index = offset
        for character in symbol {
            guard index < characters.count, characters[index] == character else { return false }
            index += 1
        }
        return true
    }

    private mutating func number() throws(RuleSyntaxError) -> Double {
        let start = offset
        while offset < characters.count, characters[offset].isASCII, characters[offset].isNumber || characters[offset] == "." {
            offset += 1
        }
        let text = String(characters[start..<offset])
        guard let value = Double(text), text.filter({ $0 == "." }).count <= 1, text.last != "." else {
            throw RuleSyntaxError(offset: start, "invalid number '\(text)'")
        }
        return value
    }

    private mutating func string(quote: Character) throws(RuleSyntaxError) -> String {
        let start = offset
        offset += 1
        var value = ""
        while offset < characters.count {
            let character = characters[offset]
            offset += 1
            if character == quote { return value }
            guard character == "\\" else {
                value.append(character)
                continue
            }
            guard offset < characters.count else { break }
            let escaped = characters[offset]
            offset += 1
            switch escaped {
            case "n": value.append("\n")
            case "r": value.append("\r")
            case "t": value.append("\t")
            case "b": value.append("\u{8}")
            case "f": value.append("\u{C}")
            case "x": value.unicodeScalars.append(try hexScalar(digits: 2))
            case "u": value.unicodeScalars.append(try hexScalar(digits: 4))
            default: value.append(escaped)
            }
        }
        throw RuleSyntaxError(offset: start, "unterminated string")
    }

    private mutating func hexScalar(digits: Int) throws(RuleSyntaxError) -> Unicode.Scalar {
        let start = offset
        guard offset + digits <= characters.count,
            let code = UInt32(String(characters[offset..<offset + digits]), radix: 16),
            let scalar = Unicode.Scalar(code)
        else {
            throw RuleSyntaxError(offset: start, "invalid escape sequence")
        }
        offset += digits
        return scalar
    }

    /// `/pattern/flags`; the pattern keeps its escapes for ``RuleRegex`` to read.
    private mutating func regex() throws(RuleSyntaxError) -> (String, String) {
        let start = offset
        offset += 1
        var pattern = ""
        var inClass = false
        while offset < characters.count {
            let character = characters[offset]
            offset += 1
            if character == "\\" {
                guard offset < characters.count else { break }
                pattern.append(character)
                pattern.append(characters[offset])
                offset += 1
                continue
            }
            if character == "/" && !inClass {
                var flags = ""
                while offset < characters.count, characters[offset].isLetter {
                    flags.append(characters[offset])
                    offset += 1
                }
                return (pattern, flags)
            }
            if character == "[" { inClass = true }
            if character == "]" { inClass = false }
            pattern.append(character)
        }
        throw RuleSyntaxError(offset: start, "unterminated regular expression")
    }
}

/// A problem in one rule expression, at a character offset within it.
struct RuleSyntaxError: Error, Sendable, Equatable {
    var offset: Int
    var problem: String

    init(offset: Int, _ problem: String) {
        self.offset = offset
        self.problem = problem
    }
}
