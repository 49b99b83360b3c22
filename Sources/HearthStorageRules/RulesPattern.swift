/// A regular expression of a rules string method (`matches`, `split`, `replace`), read with
/// the standard library's regex syntax, which accepts the RE2 patterns rules use.
struct RulesPattern {
    private let regex: Regex<AnyRegexOutput>

    init(_ pattern: String) throws(RulesEvaluationError) {
        do {
            regex = try Regex(pattern)
        } catch {
            throw RulesEvaluationError("invalid regular expression '\(pattern)'")
        }
    }

    /// Whether the pattern matches all of `string` (RE2's full match, as `matches` requires).
    func matchesWhole(_ string: String) -> Bool {
        (try? regex.wholeMatch(in: string)) != nil
    }

    func split(_ string: String) -> [String] {
        string.split(separator: regex, omittingEmptySubsequences: false).map(String.init)
    }

    func replace(in string: String, with replacement: String) -> String {
        string.replacing(regex, with: replacement)
    }
}
