import HearthStorageRules
import Testing

/// Loading rules files: what is refused, where, and that no input crashes or hangs the parser.
@Suite struct StorageRulesLoadTests {
    struct Refusal: Sendable, CustomStringConvertible {
        var source: String
        var line: Int
        var column: Int
        var message: String
        var description: String { message }
    }

    static let refusals: [Refusal] = [
        Refusal(source: "match /a { allow read; }", line: 1, column: 1, message: "expected 'service firebase.storage'"),
        Refusal(source: "service cloud.firestore {}", line: 1, column: 9, message: "must be in 'service firebase.storage'"),
        Refusal(
            source: "rules_version = '3';\nservice firebase.storage {}", line: 1, column: 17, message: "rules_version must be '1' or '2'"),
        Refusal(
            source: "service firebase.storage {\n  match /a {\n    allow reed;\n  }\n}", line: 3, column: 11,
            message: "unknown method 'reed'"),
        Refusal(
            source: "service firebase.storage {\n  match /a {\n    function f() { let x = 1; return x; }\n  }\n}", line: 3, column: 20,
            message: "'let' needs rules_version = '2'"),
        Refusal(
            source: "service firebase.storage {\n  match /a/{x=**}/b { allow read; }\n}", line: 2, column: 3,
            message: "{name=**} must be the last segment"),
        Refusal(
            source: "rules_version = '2';\nservice firebase.storage {\n  match /{a=**}/{b=**} { allow read; }\n}", line: 3, column: 3,
            message: "only one {name=**} wildcard"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if 'open; }\n}", line: 2, column: 29,
            message: "unterminated string"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if isOwner(); }\n}", line: 2, column: 29,
            message: "unknown function 'isOwner'"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if 1 +; }\n}", line: 2, column: 32,
            message: "expected an expression, found ';'"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if 1 is text; }\n}", line: 2, column: 34,
            message: "unknown type 'text'"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if firestore.exists(/databases/x); }\n}", line: 2, column: 29,
            message: "firestore.exists() is not available"),
        Refusal(
            source: "service firebase.storage {\n  match a { allow read; }\n}", line: 2, column: 9,
            message: "a match path must start with '/'"),
        Refusal(
            source: "service firebase.storage {\n  match /a/{} { allow read; }\n}", line: 2, column: 12,
            message: "a wildcard needs a name"),
        Refusal(source: "service firebase.storage {\n  allow read;\n}", line: 2, column: 3, message: "must be inside a 'match' block"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if true }\n", line: 3, column: 1,
            message: "expected 'match', 'allow', 'function' or '}', found the end of the file"),
        Refusal(source: "service firebase.storage {}\n}", line: 2, column: 1, message: "expected the end of the file"),
        Refusal(source: "service firebase.storage { /* open", line: 1, column: 28, message: "unterminated comment"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if 'a\\q' == 'a'; }\n}", line: 2, column: 31,
            message: "invalid escape"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if 99999999999999999999 > 1; }\n}", line: 2, column: 29,
            message: "out of range"),
        Refusal(
            source:
                "service firebase.storage {\n  match /a/{x} { function f(v) { return true; } }\n  match /b/{y} { allow read: if f(y); }\n}",
            line: 3, column: 33, message: "unknown function 'f'"),
        Refusal(
            source: "service firebase.storage {\n  function f() { return g(); }\n  function g() { return f(); }\n}", line: 2,
            column: 3, message: "function 'f' calls itself; rules functions may not recurse"),
        Refusal(
            source: "service firebase.storage {\n  match /{all=**} {\n    match /secret/{f} { allow read; }\n  }\n}", line: 3,
            column: 5, message: "cannot hold nested match blocks"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if hashing.crc32c('a') != null; }\n}", line: 2,
            column: 29, message: "hashing.crc32c() is not available in Hearth's storage rules"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if latlng.value(1, 2) != null; }\n}", line: 2,
            column: 29, message: "latlng.value() is not available"),
        Refusal(
            source: "service firebase.storage {\n  match /a { allow read: if /a//b != null; }\n}", line: 2, column: 32,
            message: "empty segment in path literal"),
    ]

    @Test(arguments: refusals)
    func refuses(_ refusal: Refusal) {
        let error = #expect(throws: StorageRulesError.self) { try StorageRuleset(source: refusal.source) }
        #expect(error?.message.contains(refusal.message) == true, "\(error?.message ?? "")")
        #expect(error?.line == refusal.line)
        #expect(error?.column == refusal.column)
    }

    @Test func acceptsTheSpellingsFirebaseAccepts() throws {
        let alias = try StorageRuleset(source: "service cloud.storage {\n  match /b/{bucket}/o { match /{f} { allow read } }\n}")
        #expect(alias.warnings == ["line 1: 'service cloud.storage' is read as 'service firebase.storage'"])
        #expect(alias.version == 1)
        #expect(alias.allows(.get, "x"))
        let flat = try StorageRuleset(
            source: "rules_version = \"2\"; service firebase.storage { match /b/{bucket}/o/{path=**} { allow read, write; } }")
        #expect(flat.version == 2)
        #expect(flat.allows(.delete, "a/b/c", resource: stored("a/b/c")))
        #expect(flat.allows(.list, ""))
    }

    @Test func defaultRulesTemplatesLoad() throws {
        let closed = try storageRules("match /{allPaths=**} { allow read, write: if false; }")
        #expect(!closed.allows(.get, "a"))
        let timed = try storageRules("match /{allPaths=**} { allow read, write: if request.time < timestamp.date(2999, 1, 1); }")
        #expect(timed.allows(.create, "a", requestResource: proposed("a")))
    }

    /// Random fragments of the language and random bytes: each input loads or fails with a
    /// positioned error, and whatever loads evaluates without crashing.
    @Test func fuzzedSourcesLoadOrFailCleanly() {
        var random = SplitMix64(seed: 0x5EED)
        let fragments = [
            "rules_version = '2';", "service", "firebase.storage", "{", "}", "match", "/b/{bucket}/o", "/{x=**}", "/a/{b}",
            "allow", "read", "write", "get,", "list", "create", "update", "delete", ":", "if", "true", "false", "null", "request.auth",
            "!= null", "==", "&&", "||", "?", "(", ")", "[", "]", ",", ";", "'str'", "\"s\"", "r'raw'", "b'\\x00'", "1", "2.5", "-",
            "+", "*", "/", "%", "<", ">=", "in", "is", "string", "function", "f(x)", "let", "return", "x", "=", "resource.size",
            "request.resource.contentType.matches('a.*')", "duration.value(1, 'h')", "timestamp.date(2020, 1, 1)", "math.abs(-1)",
            "/* c */", "// c\n", "$(", "path('/a')", "{'k': 1}", "firestore.get(/x)", "f()", "\n", " ", "{x}", "=**",
        ]
        var loaded = 0
        for round in 0..<3000 {
            var source = ""
            if round % 4 == 3 {
                let count = Int(random.next() % 120)
                source = String(decoding: (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }, as: UTF8.self)
            } else {
                if round % 2 == 0 { source = "rules_version = '2'; service firebase.storage { match /b/{bucket}/o { " }
                for _ in 0..<Int(random.next() % 24) { source += fragments[Int(random.next() % UInt64(fragments.count))] + " " }
                if round % 2 == 0 { source += " } }" }
            }
            do {
                let rules = try StorageRuleset(source: source)
                loaded += 1
                for method in StorageRuleMethod.allCases {
                    _ = rules.evaluate(
                        StorageRuleRequest(
                            method: method, bucket: "bucket", objectPath: "a/b", auth: user("alice"), resource: stored("a/b"),
                            requestResource: proposed("a/b")))
                }
            } catch {
                #expect(error.line >= 1 && error.column >= 1 && !error.message.isEmpty)
            }
        }
        #expect(loaded > 0)
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = ["(", "!", "-", "[", "{'a': "].map { String(repeating: $0, count: 5000) + "true" }
        let long = ["true && ", "1 + ", "1 == "].map { String(repeating: $0, count: 50000) + "true" }
        let chains = ["a" + String(repeating: "[0]", count: 50000), "a" + String(repeating: ".b", count: 50000)]
        for condition in deep + long + chains {
            let source = "service firebase.storage { match /a { allow read: if \(condition); } }"
            let error = #expect(throws: StorageRulesError.self) { try StorageRuleset(source: source) }
            #expect(error?.message.contains("nest more than") == true, "\(condition.prefix(8)): \(error?.message ?? "")")
        }
        let blocks = "service firebase.storage { " + String(repeating: "match /a { ", count: 5000)
        let error = #expect(throws: StorageRulesError.self) { try StorageRuleset(source: blocks) }
        #expect(error?.message.contains("nest more than") == true)
    }
}

/// A small deterministic random generator, so a failing fuzz case can be replayed.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
