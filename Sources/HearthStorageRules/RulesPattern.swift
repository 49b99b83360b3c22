import HearthRules

/// A regular expression of a rules string method (`matches`, `split`, `replace`), matched by the
/// database rules' engine: the RE2 patterns rules use, within a step budget, so that no pattern
/// can hang the server on a request's data.
struct RulesPattern {
    private let regex: RuleRegex

    init(_ pattern: String) throws(RulesEvaluationError) {
        do {
            regex = try RuleRegex(pattern)
        } catch {
            throw RulesEvaluationError("invalid regular expression '\(pattern)': \(error.problem)")
        }
    }

    /// Whether the pattern matches all of `string` (RE2's full match, as `matches` requires).
    func matchesWhole(_ string: String) throws(RulesEvaluationError) -> Bool {
        do {
            return try regex.matchesWhole(string)
        } catch {
            throw Self.tooLong
        }
    }

    func split(_ string: String) throws(RulesEvaluationError) -> [String] {
        let scalars = Array(string.unicodeScalars)
        var pieces: [String] = []
        var start = 0
        for range in try ranges(in: scalars) where !(range.isEmpty && (range.lowerBound == 0 || range.lowerBound == scalars.count)) {
            pieces.append(Self.text(scalars[start..<range.lowerBound]))
            start = range.upperBound
        }
        pieces.append(Self.text(scalars[start...]))
        return pieces
    }

    func replace(in string: String, with replacement: String) throws(RulesEvaluationError) -> String {
        let scalars = Array(string.unicodeScalars)
        var result = ""
        var start = 0
        for range in try ranges(in: scalars) {
            result += Self.text(scalars[start..<range.lowerBound]) + replacement
            start = range.upperBound
        }
        return result + Self.text(scalars[start...])
    }

    private func ranges(in scalars: [Unicode.Scalar]) throws(RulesEvaluationError) -> [Range<Int>] {
        do {
            return try regex.matchRanges(in: scalars)
        } catch {
            throw Self.tooLong
        }
    }

    private static let tooLong = RulesEvaluationError("the regular expression took too many steps on this input")

    private static func text(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }
}
