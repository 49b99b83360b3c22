/// Reads tokens from the text of a rules file on demand, and the raw paths of `match`
/// statements and path literals, which the parser asks for where they may start.
struct RulesScanner {
    let scalars: [Unicode.Scalar]
    /// The offset where each line starts.
    private let lineStarts: [Int]
    private(set) var position = 0

    init(_ source: String) {
        let scalars = Array(source.unicodeScalars)
        self.scalars = scalars
        lineStarts = [0] + scalars.indices.filter { scalars[$0] == "\n" }.map { $0 + 1 }
    }

    /// A load error at `offset`.
    func error(_ message: String, at offset: Int) -> StorageRulesError {
        let line = line(of: offset)
        let column = min(offset, scalars.count) - lineStarts[line - 1] + 1
        return StorageRulesError(line: line, column: column, message: message)
    }

    /// The line (from 1) of `offset`.
    func line(of offset: Int) -> Int {
        var lower = 0
        var upper = lineStarts.count
        while upper - lower > 1 {
            let middle = (lower + upper) / 2
            if lineStarts[middle] <= offset { lower = middle } else { upper = middle }
        }
        return lower + 1
    }

    /// The source text between two offsets, with runs of white space collapsed.
    func text(from start: Int, to end: Int) -> String {
        var text = ""
        var pendingSpace = false
        for scalar in scalars[start..<end] {
            if scalar.properties.isWhitespace {
                pendingSpace = !text.isEmpty
            } else {
                if pendingSpace { text.unicodeScalars.append(" ") }
                pendingSpace = false
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }
    private func scalar(at offset: Int) -> Unicode.Scalar? { offset < scalars.count ? scalars[offset] : nil }

    /// Moves past white space and comments.
    mutating func skipTrivia() throws(StorageRulesError) {
        while let scalar = current {
            if scalar.properties.isWhitespace {
                position += 1
            } else if scalar == "/" && self.scalar(at: position + 1) == "/" {
                while let next = current, next != "\n" { position += 1 }
            } else if scalar == "/" && self.scalar(at: position + 1) == "*" {
                let start = position
                position += 2
                while position < scalars.count && !(scalars[position] == "*" && self.scalar(at: position + 1) == "/") {
                    position += 1
                }
                guard position < scalars.count else { throw error("unterminated comment", at: start) }
                position += 2
            } else {
                return
            }
        }
    }

    /// The next token and the offset where it starts.
    mutating func next() throws(StorageRulesError) -> (RulesToken, Int) {
        try skipTrivia()
        let start = position
        guard let scalar = current else { return (.end, start) }
        if scalar.isIdentifierStart {
            if scalar == "r" || scalar == "b", let quote = self.scalar(at: position + 1), quote == "'" || quote == "\"" {
                position += 1
                let text = try readString(raw: scalar == "r", bytes: scalar == "b")
                return (scalar == "b" ? .bytes(text.bytes) : .string(text.string), start)
            }
            while let next = current, next.isIdentifierStart || ("0"..."9").contains(next) { position += 1 }
            return (.identifier(text(from: start, to: position)), start)
        }
        if ("0"..."9").contains(scalar) { return (try readNumber(), start) }
        if scalar == "'" || scalar == "\"" { return (.string(try readString(raw: false, bytes: false).string), start) }
        for symbol in ["<=", ">=", "==", "!=", "&&", "||"] where matches(symbol) {
            position += 2
            return (.symbol(symbol), start)
        }
        guard "()[]{},;:.?!=+-*/%<>".unicodeScalars.contains(scalar) else {
            throw error("unexpected character '\(scalar)'", at: start)
        }
        position += 1
        return (.symbol(String(scalar)), start)
    }

    private func matches(_ symbol: String) -> Bool {
        symbol.unicodeScalars.enumerated().allSatisfy { scalar(at: position + $0.offset) == $0.element }
    }

    private mutating func readNumber() throws(StorageRulesError) -> RulesToken {
        let start = position
        var isFloat = false
        while let next = current, ("0"..."9").contains(next) { position += 1 }
        if current == ".", let digit = scalar(at: position + 1), ("0"..."9").contains(digit) {
            isFloat = true
            position += 1
            while let next = current, ("0"..."9").contains(next) { position += 1 }
        }
        if current == "e" || current == "E" {
            var exponent = position + 1
            if scalar(at: exponent) == "+" || scalar(at: exponent) == "-" { exponent += 1 }
            if let digit = scalar(at: exponent), ("0"..."9").contains(digit) {
                isFloat = true
                position = exponent
                while let next = current, ("0"..."9").contains(next) { position += 1 }
            }
        }
        let text = text(from: start, to: position)
        if isFloat, let value = Double(text) { return .float(value) }
        guard let value = Int64(text) else { throw error("integer \(text) is out of range", at: start) }
        return .int(value)
    }

    /// A quoted string's contents; `bytes` strings also keep `\xHH` escapes as raw bytes.
    private mutating func readString(raw: Bool, bytes: Bool) throws(StorageRulesError) -> (string: String, bytes: [UInt8]) {
        let start = position
        let quote = scalars[position]
        position += 1
        var string = ""
        var data: [UInt8] = []
        func append(_ scalar: Unicode.Scalar) {
            string.unicodeScalars.append(scalar)
            data += Array(String(scalar).utf8)
        }
        while true {
            guard let scalar = current, scalar != "\n" else { throw error("unterminated string", at: start) }
            position += 1
            if scalar == quote { return (string, data) }
            guard scalar == "\\", !raw else {
                append(scalar)
                continue
            }
            guard let escaped = current else { throw error("unterminated string", at: start) }
            position += 1
            switch escaped {
            case "n": append("\n")
            case "r": append("\r")
            case "t": append("\t")
            case "b": append("\u{8}")
            case "f": append("\u{C}")
            case "v": append("\u{B}")
            case "\\", "'", "\"", "/", "`", "?": append(escaped)
            case "x", "u", "U":
                let digits = escaped == "x" ? 2 : escaped == "u" ? 4 : 8
                let hex = position + digits <= scalars.count ? text(from: position, to: position + digits) : ""
                guard hex.unicodeScalars.count == digits, let value = UInt32(hex, radix: 16) else {
                    throw error("invalid \\\(escaped) escape", at: position - 2)
                }
                position += digits
                if escaped == "x" && bytes {
                    data.append(UInt8(value))
                } else {
                    guard let scalar = Unicode.Scalar(value) else { throw error("invalid \\\(escaped) escape", at: position - 2) }
                    append(scalar)
                }
            default:
                throw error("invalid escape '\\\(escaped)'", at: position - 2)
            }
        }
    }

    /// The path after `match`: `/segment/{name}/{rest=**}`, ending at white space or at the
    /// `{` that opens the block.
    mutating func readMatchPath() throws(StorageRulesError) -> [MatchSegment] {
        try skipTrivia()
        guard current == "/" else { throw error("a match path must start with '/'", at: position) }
        var segments: [MatchSegment] = []
        while current == "/" {
            position += 1
            let start = position
            if current == "{" {
                position += 1
                let nameStart = position
                while let next = current, next.isIdentifierStart || ("0"..."9").contains(next) { position += 1 }
                let name = text(from: nameStart, to: position)
                guard let first = name.unicodeScalars.first, first.isIdentifierStart else {
                    throw error("a wildcard needs a name, as {name} or {name=**}", at: start)
                }
                var recursive = false
                if matches("=**") {
                    recursive = true
                    position += 3
                }
                guard current == "}" else { throw error("a wildcard ends with '}', as {name} or {name=**}", at: start) }
                position += 1
                segments.append(recursive ? .rest(name) : .single(name))
            } else {
                while let next = current, next != "/", next != "{", next != "}", !next.properties.isWhitespace { position += 1 }
                guard position > start else { throw error("empty segment in match path", at: start) }
                segments.append(.literal(text(from: start, to: position)))
            }
        }
        return segments
    }

    /// One raw segment of a path literal (after its `/`): the text up to the next `/`, white
    /// space, operator or closing bracket, or `$(`, which starts an interpolation. Parentheses
    /// inside the segment, as in `(default)`, are kept.
    mutating func readPathLiteralText() -> String {
        let start = position
        var depth = 0
        while let next = current, !next.properties.isWhitespace, next != "/" {
            if next == "$" && scalar(at: position + 1) == "(" { break }
            if next == "(" {
                depth += 1
            } else if next == ")" {
                if depth == 0 { break }
                depth -= 1
            } else if ",;]}=!<>&|?:+*%".unicodeScalars.contains(next) {
                break
            }
            position += 1
        }
        return text(from: start, to: position)
    }

    /// Whether the next scalars are `s` (no trivia skipped); consumes them if so.
    mutating func consume(_ s: String) -> Bool {
        guard matches(s) else { return false }
        position += s.unicodeScalars.count
        return true
    }
}

/// A segment of a `match` path.
enum MatchSegment: Sendable, Equatable {
    case literal(String)
    /// `{name}`: one segment, bound as a string.
    case single(String)
    /// `{name=**}`: the rest (or, in version 2, any run) of segments, bound as a path.
    case rest(String)
}

extension Unicode.Scalar {
    var isIdentifierStart: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || self == "_"
    }
}
