import HearthCore
import HearthRules
import Testing

/// Random and mutated rules documents: reading one either succeeds or throws ``RulesError``, and
/// evaluating what loads always finishes. Seeded, so a failure reproduces.
@Suite struct RulesFuzzTests {
    /// A small deterministic generator (SplitMix64).
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let fragments = [
        "auth", "auth.uid", "now", "root", "data", "newData", "query.limitToFirst", "$id", ".val()", ".child('a')",
        ".child(", ".exists()", ".hasChildren(['a','b'])", ".matches(/^a+(b|c)*$/i)", ".length", ".contains('x')", "==",
        "!=", "===", "<", ">=", "&&", "||", "?", ":", "!", "-", "+", "*", "/", "%", "(", ")", "[", "]", "'str'", "\"q\"",
        "1", "0.5", "true", "false", "null", ".", ",", "/x{2,}/", "'\\u0041'", "=", ";", "**", " ", "\\",
    ]

    @Test func randomExpressionsLoadOrFailCleanly() throws {
        var random = Seeded(state: 42)
        let data = try NodeBuilder(timestamp: 0).build(JSONParser.parse(#"{"a": {"b": "x"}, "n": 3}"#), at: .root, existing: .null)
        var loaded = 0
        for _ in 0..<4_000 {
            let count = Int.random(in: 1...12, using: &random)
            let expression = (0..<count).map { _ in Self.fragments.randomElement(using: &random)! }.joined()
            let kind = [".read", ".write", ".validate"].randomElement(using: &random)!
            let source = #"{"rules": {"a": {"$id": {"\#(kind)": \#(JSONWriter.string(.string(expression)))}}}}"#
            guard let rules = try? RulesDocument(source: source) else { continue }
            loaded += 1
            let path = try DatabasePath("a/b")
            let request = RuleRequest(auth: .null, now: 0)
            _ = rules.checkRead(path, query: nil, by: request, tree: data, explain: true)
            _ = rules.checkWrite([path], by: request, before: data, after: .null, explain: true)
        }
        #expect(loaded > 20)
    }

    @Test func randomBytesNeverCrashTheReader() {
        var random = Seeded(state: 7)
        let alphabet = Array("{}[]\":,.$/\\*'() \n\tabrulesdtwvie0123456789!=&|?<>+-%".unicodeScalars)
        for _ in 0..<4_000 {
            let length = Int.random(in: 0...80, using: &random)
            var text = #"{"rules": {".read": ""#
            for _ in 0..<length { text.unicodeScalars.append(alphabet.randomElement(using: &random)!) }
            _ = try? RulesDocument(source: text)
        }
    }

    @Test func deepNestingIsRefusedNotCrashed() {
        let nested = String(repeating: "(", count: 5_000) + "true" + String(repeating: ")", count: 5_000)
        #expect(throws: RulesError.self) { try RulesDocument(source: #"{"rules": {".read": "\#(nested)"}}"#) }
        let chain = Array(repeating: "true", count: 5_000).joined(separator: " && ")
        #expect(throws: RulesError.self) { try RulesDocument(source: #"{"rules": {".read": "\#(chain)"}}"#) }
        let negations = String(repeating: "!", count: 5_000) + "true"
        #expect(throws: RulesError.self) { try RulesDocument(source: #"{"rules": {".read": "\#(negations)"}}"#) }
    }

    @Test func catastrophicRegexFailsInsteadOfHanging() throws {
        let input = String(repeating: "a", count: 40) + "b"
        let harness = try RulesHarness(#"{"rules": {".read": "'\#(input)'.matches(/^(a|a)*$/)"}}"#)
        let decision = harness.rules.checkRead(.root, query: nil, by: RuleRequest(auth: .null, now: 0), tree: .null, explain: true)
        #expect(!decision.isAllowed)
        guard case .failed = decision.evaluations.first?.outcome else {
            Issue.record("the step budget should end the match")
            return
        }
    }
}

@Suite struct RulesLimitTests {
    @Test func oversizedRulesAreRefused() {
        let padding = String(repeating: " ", count: RulesDocument.maximumSourceBytes)
        #expect(throws: RulesError.self) { try RulesDocument(source: #"{"rules": {".read": true}}"# + padding) }
    }
}
