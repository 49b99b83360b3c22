/// A regular-expression literal of a rule (`/^[a-z0-9_]{3,16}$/i`), in the subset Firebase accepts.
///
/// The subset: literal characters, `.`, the classes `\d \D \w \W \s \S`, word boundaries
/// `\b \B`, escapes, bracket classes with ranges and negation, groups, alternation, the greedy
/// quantifiers `* + ? {n} {n,} {n,m}`, `^` only as the pattern's first character and `$` only as
/// its last; `i` is the only flag. `{` and `}` that do not form a quantifier are literals. Matching
/// is a search (the pattern may match anywhere) unless anchored. Matching backtracks within a step
/// budget: a pattern that exceeds it on some input fails that evaluation instead of hanging the
/// server.
public struct RuleRegex: Sendable {
    /// The pattern as written between the slashes.
    public let pattern: String
    let ignoresCase: Bool
    private let alternatives: [[Element]]

    /// Steps one match may take before it is abandoned.
    static let stepBudget = 1_000_000

    indirect enum Element: Sendable {
        case scalar(Unicode.Scalar)
        case anyExceptNewline
        case set(CharacterSet)
        case group([[Element]])
        case repeated(Element, min: Int, max: Int?)
        case start
        case end
        case wordBoundary(Bool)
    }

    /// A bracket class or class escape: ranges and named classes, possibly negated.
    struct CharacterSet: Sendable {
        var ranges: [ClosedRange<UInt32>] = []
        var named: [(NamedClass, negated: Bool)] = []
        var negated = false

        func contains(_ scalar: Unicode.Scalar, ignoringCase: Bool) -> Bool {
            var candidates = [scalar]
            if ignoringCase { candidates += RuleRegex.caseVariants(of: scalar) }
            let found = candidates.contains { candidate in
                ranges.contains { $0.contains(candidate.value) }
                    || named.contains { $0.0.contains(candidate) != $0.negated }
            }
            return found != negated
        }
    }

    enum NamedClass: Sendable {
        case digit, word, space

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            switch self {
            case .digit: ("0"..."9").contains(scalar)
            case .word: ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
            case .space: scalar.properties.isWhitespace || scalar == "\u{FEFF}"
            }
        }
    }

    /// Reads `/pattern/flags`; throws a description of the first construct outside the subset.
    init(pattern: String, flags: String) throws(RegexSyntaxError) {
        guard flags.isEmpty || flags == "i" else {
            throw RegexSyntaxError("unsupported regular expression flag '\(flags)'; only 'i' is allowed")
        }
        self.pattern = pattern
        self.ignoresCase = flags == "i"
        var reader = PatternReader(scalars: Array(pattern.unicodeScalars))
        self.alternatives = try reader.readPattern()
    }

    /// Whether the pattern matches somewhere in `string`; `nil` when the step budget ran out.
    func firstMatchExists(in string: String) -> Bool? {
        let matcher = Matcher(input: Array(string.unicodeScalars), ignoresCase: ignoresCase)
        let whole = [Element.group(alternatives)]
        for start in 0...matcher.input.count {
            if matcher.match(whole, 0, start, { _ in true }) { return true }
            if matcher.exhausted { return nil }
        }
        return false
    }

    /// Reads `pattern` (the subset above, no flags) for use outside database rules, such as the
    /// `matches`, `split` and `replace` of storage rules.
    public init(_ pattern: String) throws(RegexSyntaxError) {
        try self.init(pattern: pattern, flags: "")
    }

    /// Whether the pattern matches all of `string`.
    public func matchesWhole(_ string: String) throws(RegexBudgetExhausted) -> Bool {
        let matcher = Matcher(input: Array(string.unicodeScalars), ignoresCase: ignoresCase)
        let found = matcher.match([Element.group(alternatives)], 0, 0) { $0 == matcher.input.count }
        if matcher.exhausted { throw RegexBudgetExhausted() }
        return found
    }

    /// The leftmost non-overlapping matches in `input`, as ranges of scalar offsets; after an
    /// empty match the search moves on by one scalar.
    public func matchRanges(in input: [Unicode.Scalar]) throws(RegexBudgetExhausted) -> [Range<Int>] {
        let matcher = Matcher(input: input, ignoresCase: ignoresCase)
        let whole = [Element.group(alternatives)]
        var ranges: [Range<Int>] = []
        var start = 0
        while start <= input.count {
            var end = start
            if matcher.match(
                whole, 0, start,
                { found in
                    end = found
                    return true
                })
            {
                ranges.append(start..<end)
                start = end > start ? end : start + 1
            } else {
                start += 1
            }
            if matcher.exhausted { throw RegexBudgetExhausted() }
        }
        return ranges
    }

    static func caseVariants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        let upper = scalar.properties.uppercaseMapping.unicodeScalars
        return (lower.count == 1 ? [lower.first!] : []) + (upper.count == 1 ? [upper.first!] : [])
    }
}

/// A regular expression outside the subset Firebase accepts.
public struct RegexSyntaxError: Error, Sendable {
    public var problem: String
    init(_ problem: String) { self.problem = problem }
}

/// A match that took more steps than ``RuleRegex`` allows one (a pattern that backtracks
/// catastrophically on its input).
public struct RegexBudgetExhausted: Error, Sendable {}

/// Backtracking matcher over Unicode scalars, with continuations.
private final class Matcher {
    let input: [Unicode.Scalar]
    let ignoresCase: Bool
    private var steps = 0
    private(set) var exhausted = false

    init(input: [Unicode.Scalar], ignoresCase: Bool) {
        self.input = input
        self.ignoresCase = ignoresCase
    }

    /// Matches `sequence[index...]` at `position`, then asks `next` about the rest.
    func match(_ sequence: [RuleRegex.Element], _ index: Int, _ position: Int, _ next: (Int) -> Bool) -> Bool {
        guard index < sequence.count else { return next(position) }
        steps += 1
        if steps > RuleRegex.stepBudget { exhausted = true }
        if exhausted { return false }
        func continuation(_ end: Int) -> Bool { match(sequence, index + 1, end, next) }
        switch sequence[index] {
        case .start:
            return position == 0 && continuation(position)
        case .end:
            return position == input.count && continuation(position)
        case .wordBoundary(let wanted):
            return isWordBoundary(at: position) == wanted && continuation(position)
        case .scalar, .anyExceptNewline, .set:
            guard position < input.count, matchesOne(sequence[index], input[position]) else { return false }
            return continuation(position + 1)
        case .group(let alternatives):
            return alternatives.contains { match($0, 0, position, continuation) }
        case .repeated(let element, let min, let max):
            return repeatMatch(element, min: min, max: max, count: 0, position, continuation)
        }
    }

    /// Greedy repetition: one more copy first, then the rest of the pattern.
    private func repeatMatch(
        _ element: RuleRegex.Element, min: Int, max: Int?, count: Int, _ position: Int, _ next: (Int) -> Bool
    ) -> Bool {
        if max.map({ count < $0 }) ?? true {
            let more = match([element], 0, position) { end in
                // A copy that consumed nothing cannot help once the minimum is reached.
                guard end != position || count < min else { return false }
                return self.repeatMatch(element, min: min, max: max, count: count + 1, end, next)
            }
            if more { return true }
        }
        return count >= min && next(position)
    }

    private func matchesOne(_ element: RuleRegex.Element, _ scalar: Unicode.Scalar) -> Bool {
        switch element {
        case .scalar(let expected):
            if scalar == expected { return true }
            return ignoresCase && RuleRegex.caseVariants(of: scalar).contains(expected)
        case .anyExceptNewline:
            return !["\n", "\r", "\u{2028}", "\u{2029}"].contains(scalar)
        case .set(let set):
            return set.contains(scalar, ignoringCase: ignoresCase)
        default:
            return false
        }
    }

    private func isWordBoundary(at position: Int) -> Bool {
        let before = position > 0 && RuleRegex.NamedClass.word.contains(input[position - 1])
        let after = position < input.count && RuleRegex.NamedClass.word.contains(input[position])
        return before != after
    }
}

/// Reads a pattern into elements, enforcing the subset.
private struct PatternReader {
    let scalars: [Unicode.Scalar]
    var offset = 0
    var groupDepth = 0

    init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    mutating func readPattern() throws(RegexSyntaxError) -> [[RuleRegex.Element]] {
        let alternatives = try readAlternatives()
        if offset < scalars.count { throw RegexSyntaxError("unmatched ')' in regular expression") }
        return alternatives
    }

    private var peek: Unicode.Scalar? { offset < scalars.count ? scalars[offset] : nil }

    private mutating func readAlternatives() throws(RegexSyntaxError) -> [[RuleRegex.Element]] {
        var alternatives: [[RuleRegex.Element]] = []
        while true {
            let sequence = try readSequence()
            if sequence.isEmpty && groupDepth > 0 {
                throw RegexSyntaxError("empty alternative inside a group in regular expression")
            }
            alternatives.append(sequence)
            guard peek == "|" else { return alternatives }
            offset += 1
        }
    }

    private mutating func readSequence() throws(RegexSyntaxError) -> [RuleRegex.Element] {
        var sequence: [RuleRegex.Element] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            let atomStart = offset
            let atom = try readAtom()
            if let quantifier = try readQuantifier() {
                switch atom {
                case .start, .end, .wordBoundary:
                    throw RegexSyntaxError("nothing to repeat at position \(atomStart) of regular expression")
                default:
                    sequence.append(.repeated(atom, min: quantifier.min, max: quantifier.max))
                }
            } else {
                sequence.append(atom)
            }
        }
        return sequence
    }

    private mutating func readAtom() throws(RegexSyntaxError) -> RuleRegex.Element {
        let scalar = scalars[offset]
        let position = offset
        offset += 1
        switch scalar {
        case "^":
            guard position == 0, groupDepth == 0 else {
                throw RegexSyntaxError("'^' is only allowed at the start of a regular expression")
            }
            return .start
        case "$":
            guard position == scalars.count - 1, groupDepth == 0 else {
                throw RegexSyntaxError("'$' is only allowed at the end of a regular expression")
            }
            return .end
        case ".":
            return .anyExceptNewline
        case "(":
            if peek == "?" {
                guard offset + 1 < scalars.count, scalars[offset + 1] == ":" else {
                    throw RegexSyntaxError("look-around and named groups are not supported in regular expressions")
                }
                offset += 2
            }
            groupDepth += 1
            let alternatives = try readAlternatives()
            groupDepth -= 1
            guard peek == ")" else { throw RegexSyntaxError("missing ')' in regular expression") }
            offset += 1
            return .group(alternatives)
        case "[":
            return .set(try readClass())
        case "\\":
            return try readEscape(inClass: false)
        case "*", "+", "?":
            throw RegexSyntaxError("nothing to repeat at position \(position) of regular expression")
        case "{":
            offset = position
            if try readQuantifier() != nil {
                throw RegexSyntaxError("nothing to repeat at position \(position) of regular expression")
            }
            offset = position + 1
            return .scalar(scalar)
        default:
            return .scalar(scalar)
        }
    }

    /// `* + ? {n} {n,} {n,m}`, or `nil` (a `{` that is no quantifier stays a literal).
    private mutating func readQuantifier() throws(RegexSyntaxError) -> (min: Int, max: Int?)? {
        guard let scalar = peek else { return nil }
        var quantifier: (min: Int, max: Int?)
        switch scalar {
        case "*": quantifier = (0, nil)
        case "+": quantifier = (1, nil)
        case "?": quantifier = (0, 1)
        case "{":
            guard let braced = readBraces() else { return nil }
            quantifier = braced
        default: return nil
        }
        offset += 1
        if peek == "?" { throw RegexSyntaxError("lazy quantifiers are not supported in regular expressions") }
        if let max = quantifier.max, max < quantifier.min {
            throw RegexSyntaxError("numbers out of order in {} quantifier of regular expression")
        }
        return quantifier
    }

    /// `{n}`, `{n,}` or `{n,m}` at the current `{`, leaving the offset on the closing `}`.
    private mutating func readBraces() -> (min: Int, max: Int?)? {
        var cursor = offset + 1
        func digits() -> Int? {
            var value: Int?
            while cursor < scalars.count, let digit = Int(String(scalars[cursor])), ("0"..."9").contains(scalars[cursor]) {
                value = min((value ?? 0) * 10 + digit, 100_000)
                cursor += 1
            }
            return value
        }
        guard let minimum = digits() else { return nil }
        var maximum: Int? = minimum
        if cursor < scalars.count, scalars[cursor] == "," {
            cursor += 1
            maximum = digits()
        }
        guard cursor < scalars.count, scalars[cursor] == "}" else { return nil }
        offset = cursor
        return (minimum, maximum)
    }

    private mutating func readEscape(inClass: Bool) throws(RegexSyntaxError) -> RuleRegex.Element {
        guard let scalar = peek else { throw RegexSyntaxError("'\\' at the end of a regular expression") }
        offset += 1
        var set = RuleRegex.CharacterSet()
        switch scalar {
        case "d", "D": set.named = [(.digit, scalar == "D")]
        case "w", "W": set.named = [(.word, scalar == "W")]
        case "s", "S": set.named = [(.space, scalar == "S")]
        case "b",
            "B" where !inClass:
            return .wordBoundary(scalar == "b")
        case "b": return .scalar("\u{8}")
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        case "t": return .scalar("\t")
        case "f": return .scalar("\u{C}")
        case "v": return .scalar("\u{B}")
        case "1"..."9": throw RegexSyntaxError("back-references are not supported in regular expressions")
        default: return .scalar(scalar)
        }
        return .set(set)
    }

    /// `[...]` after its `[`.
    private mutating func readClass() throws(RegexSyntaxError) -> RuleRegex.CharacterSet {
        var set = RuleRegex.CharacterSet()
        if peek == "^" {
            set.negated = true
            offset += 1
        }
        while let scalar = peek, scalar != "]" {
            guard let low = try readClassMember(into: &set) else { continue }
            if peek == "-", offset + 1 < scalars.count, scalars[offset + 1] != "]" {
                offset += 1
                guard let high = try readClassMember(into: &set) else {
                    throw RegexSyntaxError("invalid range in character class of regular expression")
                }
                guard low.value <= high.value else {
                    throw RegexSyntaxError("range out of order in character class of regular expression")
                }
                set.ranges.append(low.value...high.value)
            } else {
                set.ranges.append(low.value...low.value)
            }
        }
        guard peek == "]" else { throw RegexSyntaxError("missing ']' in regular expression") }
        offset += 1
        return set
    }

    /// One character of a class; a class escape (`\d`) goes straight into `set` and gives `nil`.
    private mutating func readClassMember(into set: inout RuleRegex.CharacterSet) throws(RegexSyntaxError) -> Unicode.Scalar? {
        let scalar = scalars[offset]
        offset += 1
        guard scalar == "\\" else { return scalar }
        switch try readEscape(inClass: true) {
        case .scalar(let escaped): return escaped
        case .set(let named):
            set.named += named.named
            return nil
        default: return nil
        }
    }
}
