import HearthStorageRules
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The expression language (spec storage-api §13, §15): each expression is the condition of an
/// `allow get`, so it grants only when it evaluates to `true`.
@Suite struct StorageRulesExpressionTests {
    private func grants(_ condition: String) throws -> Bool {
        let rules = try storageRules("match /{all=**} { allow get: if \(condition); }")
        return rules.allows(.get, "a/b.png", auth: user("alice"), resource: stored("a/b.png"), params: ["alt": "media"])
    }

    static let trueExpressions = [
        "1 + 2 * 3 == 7", "7 / 2 == 3", "7 % 3 == 1", "-7 / 2 == -3", "1 == 1.0", "1.5 * 2 == 3", "7 / 2.0 == 3.5",
        "'a' + 'b' == 'ab'", "[1, 2] + [3] == [1, 2, 3]", "'abc'.size() == 3", "'ABC'.lower() == 'abc'", "'abc'.upper() == 'ABC'",
        "'  x '.trim() == 'x'", "'image/png'.matches('image/.*')", "!'ximage/png'.matches('image/.*')",
        "!'image/png!'.matches('image/[a-z]+')", "'a,b,,c'.split(',') == ['a', 'b', '', 'c']", "'aXbX'.replace('X', '-') == 'a-b-'",
        "'abc'[1] == 'b'", "'abcdef'[1:3] == 'bc'", "[1, 2, 3][0:2] == [1, 2]", "[1, 2, 3][1:] == [2, 3]",
        "3 in [1, 2, 3]", "'k' in {'k': 1}", "!('z' in {'k': 1})",
        "{'b': 1, 'a': 2}.keys() == ['a', 'b']", "{'a': 1}.values() == [1]", "{'a': {'b': 2}}.get(['a', 'b'], 0) == 2",
        "{'a': 1}.get('z', 7) == 7", "{'a': 1}['a'] == 1", "{'a': 1}.a == 1", "{'a': 1, 'b': 2}.size() == 2",
        "[1, 2, 2].toSet().size() == 2", "[1, 2].hasAll([2])", "[1, 2].hasAny([3, 2])", "[1, 2].hasOnly([1, 2, 3])",
        "!([1, 4].hasOnly([1, 2, 3]))", "['a', 'b'].join('-') == 'a-b'", "[1, 2, 3].removeAll([2]) == [1, 3]",
        "[1].concat([2]) == [1, 2]", "[1, 2].toSet() == [2, 1].toSet()", "[1, 2].toSet().union([3]).size() == 3",
        "[1, 2].toSet().intersection([2]) == [2].toSet()", "[1, 2].toSet().difference([2]) == [1].toSet()",
        "{'a': 1, 'b': 2}.diff({'a': 1, 'c': 3}).addedKeys() == ['c'].toSet()",
        "{'a': 1, 'b': 2}.diff({'a': 5, 'b': 2}).changedKeys() == ['a'].toSet()",
        "{'a': 1, 'b': 2}.diff({'a': 1}).removedKeys() == ['b'].toSet()",
        "{'a': 1, 'b': 2}.diff({'a': 1, 'c': 3}).affectedKeys() == ['b', 'c'].toSet()",
        "{'a': 1, 'b': 2}.diff({'a': 1}).unchangedKeys() == ['a'].toSet()",
        "1 is int", "1.0 is float", "1 is number", "'x' is string", "null is null", "[1] is list", "{} is map",
        "request.time is timestamp", "request.path is path", "b'x' is bytes", "duration.value(1, 's') is duration",
        "duration.value(90, 'm') == duration.value(1, 'h') + duration.value(30, 'm')",
        "duration.value(1, 'd').seconds() == 86400", "duration.value(2, 'w') > duration.value(13, 'd')",
        "duration.time(1, 2, 3, 4).nanos() == 4", "duration.value(1500, 'ms').seconds() == 1",
        "duration.abs(-duration.value(1, 's')) == duration.value(1000, 'ms')",
        "timestamp.date(2024, 2, 29).dayOfYear() == 60", "timestamp.date(2024, 2, 29).month() == 2",
        "timestamp.date(2024, 2, 29).day() == 29", "timestamp.date(2024, 2, 29).year() == 2024",
        "timestamp.date(2024, 3, 4).dayOfWeek() == 1", "timestamp.date(2024, 3, 10).dayOfWeek() == 7",
        "timestamp.value(86400000) == timestamp.date(1970, 1, 2)", "timestamp.value(90061001).hours() == 1",
        "timestamp.value(90061001).minutes() == 1", "timestamp.value(90061001).seconds() == 1",
        "timestamp.value(90061001).nanos() == 1000000", "timestamp.value(90061001).toMillis() == 90061001",
        "timestamp.value(90061001).date() == timestamp.date(1970, 1, 2)",
        "timestamp.value(90061001).time() == duration.time(1, 1, 1, 1000000)",
        "timestamp.date(2000, 1, 2) - timestamp.date(2000, 1, 1) == duration.value(1, 'd')",
        "timestamp.date(2000, 1, 1) + duration.value(1, 'd') == timestamp.date(2000, 1, 2)",
        "timestamp.value(-1).year() == 1969", "request.time > timestamp.date(2020, 1, 1)",
        "request.time - duration.value(1, 'h') < request.time",
        "math.abs(-10) == 10", "math.abs(-1.5) == 1.5", "math.ceil(1.2) == 2", "math.floor(-1.5) == -2", "math.round(2.5) == 3",
        "math.sqrt(16) == 4.0", "math.pow(2, 10) == 1024", "math.isNaN(0.0 / 0.0)", "math.isInfinite(1.0 / 0.0)",
        "int('42') == 42", "int(3.9) == 3", "float(1) == 1.0", "string(12) == '12'", "string(true) == 'true'", "bool('true')",
        "path('/a/b')[1] == 'b'", "string(path('/a/b')) == 'a/b'", "/a/$('b' + 'c') == path('/a/bc')",
        "/databases/(default)/documents == path('/databases/(default)/documents')",
        "true ? 1 == 1 : false", "false ? false : true", "r'a\\d' == 'a\\\\d'", "'\\u0041' == 'A'", "\"q\" == 'q'",
        "b'\\x01\\x02'.size() == 2", "hashing.sha256('abc') == hashing.sha256(b'abc')",
        "hashing.md5('') != hashing.md5('a')", "'abc'.toUtf8() == b'abc'", "debug(1) == 1",
        "null.x || true", "!(null.x && false)", "false && null.x == 1 || true", "1 < 2 && 'a' < 'b'", "1 != 'a'",
        "!(1 == 'a')", "request.params.alt == 'media'", "request.auth.uid == 'alice'",
        "request.auth.token.firebase.sign_in_provider == 'password'", "resource.name == 'a/b.png'",
        "resource.metadata == {}", "resource.size == 10", "request.resource == null", "all == path('/a/b.png')",
        "all[1] == 'b.png'", "resource.timeCreated <= request.time", "resource.generation == 1",
        "/* comment */ true /* trailing */", "-(1) == -1", "!!true", "!(1 > math.sqrt(-1))",
        "timestamp.value(253402300799000).year() == 9999", "timestamp.date(1, 1, 1).dayOfWeek() == 1",
    ]

    static let deniedExpressions = [
        "null.x", "{'a': 1}.b == 1", "{'a': 1}['b'] == 1", "1 < 'a'", "1 / 0 == 0", "1 % 0 == 0", "[1][5] == 1",
        "[1][-1] == 1", "'abc'[1:9] == 'bc'", "null.x && true", "null.x || false",
        "duration.value(1, 'y') > duration.value(0, 's')", "'a'", "1", "1 + 'a' == 1", "9223372036854775807 + 1 > 0",
        "unknownVariable == 1", "'abc'.nosuch()", "!1", "1 ? true : true", "timestamp.date(2023, 2, 29) != null",
        "int('x') == 0", "'a'.matches('(')", "request.method == 'get'", "resource.cacheControl == null",
        "request.resource.size > 0", "1 in 'abc'", "0.0 / 0.0 < 1.0", "0.0 / 0.0 >= 1.0", "[1] < [2]",
        "int(1e300) == 0", "timestamp.value(-9223372036854775807) != null", "timestamp.value(9223372036854775807) != null",
        "timestamp.value(253402300799000) + duration.value(1, 's') > request.time", "1 > math.sqrt(-1)", "1 <= math.sqrt(-1)",
        "timestamp.date(1, 1, 1) - timestamp.date(9999, 1, 1) < duration.value(0, 's')",
    ]

    @Test(arguments: trueExpressions)
    func grants(expression: String) throws {
        #expect(try grants(expression), "\(expression)")
    }

    @Test(arguments: deniedExpressions)
    func doesNotGrant(expression: String) throws {
        #expect(try !grants(expression), "\(expression)")
    }

    @Test func functionsSeeTheirScopeAndNestAtMostTenDeep() throws {
        let chain = (1...10).map { "function f\($0)() { return f\($0 - 1)(); }" }.joined(separator: "\n")
        let rules = try storageRules(
            """
            function f0() { return true; }
            \(chain)
            match /users/{uid}/{rest=**} {
              function owner() { return request.auth.uid == uid; }
              function ownerAgain() { let same = owner(); return same; }
              allow get: if ownerAgain();
              allow list: if request.params.n == 'deep' ? f10() : f9();
              match /deeper/{file} {
                allow create: if owner() && file == 'x';
              }
            }
            """)
        #expect(rules.allows(.get, "users/alice/a", auth: user("alice")))
        #expect(!rules.allows(.get, "users/alice/a", auth: user("bob")))
        #expect(rules.allows(.list, "users/alice", params: ["n": "shallow"]))
        #expect(!rules.allows(.list, "users/alice", params: ["n": "deep"]))
        #expect(rules.allows(.create, "users/alice/deeper/x", auth: user("alice"), requestResource: proposed("x")))
        #expect(!rules.allows(.create, "users/alice/deeper/y", auth: user("alice"), requestResource: proposed("y")))
    }

    @Test func evaluationStopsAtItsStepBudget() throws {
        let levels = (1...9).map { level in
            "function g\(level)() { return " + Array(repeating: "g\(level - 1)()", count: 8).joined(separator: " || ") + "; }"
        }
        let rules = try storageRules(
            """
            function g0() { return false; }
            \(levels.joined(separator: "\n"))
            match /{f} { allow get: if g9(); }
            """)
        let decision = rules.evaluate(StorageRuleRequest(method: .get, bucket: "bucket", objectPath: "a"))
        #expect(!decision.isAllowed)
        #expect(decision.explanation.last == "denied: the rules took more steps than one request may use")
        let nested = try storageRules(
            "match /{a=**} { match /{b=**} { match /{c=**} { match /{d=**} { allow read: if false; } } } }")
        let longPath = Array(repeating: "s", count: 500).joined(separator: "/")
        #expect(!nested.allows(.get, longPath))
    }

    @Test func aCatastrophicRegularExpressionIsAnErrorNotAHang() throws {
        let rules = try storageRules("match /{name} { allow get: if name.matches('(a|aa)*b'); }")
        let decision = rules.evaluate(
            StorageRuleRequest(method: .get, bucket: "bucket", objectPath: String(repeating: "a", count: 60)))
        #expect(!decision.isAllowed)
        #expect(decision.explanation.first?.hasSuffix("error: the regular expression took too many steps on this input") == true)
        #expect(rules.allows(.get, "aab"))
    }

    @Test func timesBeyond2262AreRead() throws {
        let rules = try storageRules("match /{f} { allow get: if resource.timeCreated.year() == 2300; }")
        #expect(rules.allows(.get, "a", resource: stored("a", created: Date(timeIntervalSince1970: 10_413_792_000))))
    }

    @Test func aFailingLetIsAnErrorOnlyWhereItIsUsed() throws {
        let rules = try storageRules(
            """
            function sizeOrMissing() { let size = resource.size; return resource == null || size > 5; }
            match /{file} { allow get: if sizeOrMissing(); }
            """)
        #expect(rules.allows(.get, "a"))
        #expect(rules.allows(.get, "a", resource: stored("a", size: 10)))
        #expect(!rules.allows(.get, "a", resource: stored("a", size: 1)))
    }

    @Test func recursiveWildcardsInTheMiddleOfAPath() throws {
        let plain = try storageRules("match /{prefix=**}/songs/{mp3} { allow get: if mp3.matches('.*[.]mp3'); }")
        #expect(plain.allows(.get, "a/b/songs/x.mp3"))
        #expect(plain.allows(.get, "songs/x.mp3"))
        #expect(!plain.allows(.get, "a/songs/x.wav"))
        #expect(!plain.allows(.get, "a/songs/sub/x.mp3"))
    }

    @Test func versionOneRecursiveWildcardsMatchAtLeastOneSegment() throws {
        let rules = try storageRules("match /users/{rest=**} { allow get; }", version: 1)
        #expect(rules.allows(.get, "users/a/b"))
        #expect(!rules.allows(.get, "users"))
        let two = try storageRules("match /users/{rest=**} { allow get; }")
        #expect(two.allows(.get, "users"))
    }
}
