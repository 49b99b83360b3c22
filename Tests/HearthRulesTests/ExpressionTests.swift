import HearthCore
import HearthRules
import Testing

/// Operators, methods and run-time errors of the expression language (§2.4, §4).
@Suite struct ExpressionTests {
    static let someone = try! RulesHarness.user("u1", claims: #"{"someString": "one", "someInt": 1, "foo": {"bar": "x"}}"#)

    /// How `expression`, as the root's `.read`, comes out for `auth` over `data`.
    private func outcome(_ expression: String, auth: JSONValue = someone, data: String = "null") throws -> RuleOutcome {
        let quoted = JSONWriter.string(.string(expression))
        let harness = try RulesHarness(#"{"rules": {".read": \#(quoted)}}"#, data: data)
        let decision = harness.rules.checkRead(
            .root, query: nil, by: RuleRequest(auth: auth, now: harness.now), tree: harness.tree, explain: true)
        return try #require(decision.evaluations.first).outcome
    }

    @Test(arguments: [
        ("'one' == 1", false), ("1 == 1.0", true), ("'a' + 1 == 'a1'", true), ("1 + 'x' == '1x'", true),
        ("auth.token.someString + 1 == 'one1'", true), ("2 * 3 - 1 == 5", true), ("7 % 4 == 3", true),
        ("(1/0 + '') == 'NaN' || (1/0 + '') == 'Infinity'", true), ("(0/0) > 2", false), ("(0/0) < 2", false),
        ("'abc' < 'abd'", true), ("-(3) == -3", true), ("!(auth.token.foo == null)", true), ("auth.missing.deeper == null", true),
        ("true ? false : true", false), ("auth.token.foo['bar'] == 'x'", true), ("'a-b-c'.replace('-', '+') == 'a+b+c'", true),
        ("'Hello'.toLowerCase() == 'hello'", true), ("'Hello'.toUpperCase() == 'HELLO'", true), ("'héllo'.length == 5", true),
        ("'foo1'.contains('o1')", true), ("'foo'.beginsWith('fo') && 'foo'.endsWith('oo')", true),
        ("root[\"exists\"]() == false", true), ("1 + 2 * 3 == 7", true), ("false || true && false", false),
        ("auth.uid == 'u1' && auth.token.sub == 'u1'", true),
    ])
    func evaluates(_ expression: String, _ expected: Bool) throws {
        #expect(try outcome(expression) == (expected ? .granted : .false))
    }

    @Test(arguments: [
        "auth.token.someInt > 'one'", "'foo' > auth.missing", "auth.missing.contains('x')", "'foo1'.contains(auth.token.someInt)",
        "auth.not.found.length > 0", "auth.token.someString - 1 == 0", "root.parent().exists()", "root.child(auth.missing).exists()",
        "auth.dreams.length > 1 ? false : true", "auth.token.someInt && true",
    ])
    func failsAtRunTime(_ expression: String) throws {
        guard case .failed = try outcome(expression) else {
            Issue.record("\(expression) should fail at run time")
            return
        }
    }

    @Test func signedOutCallersSeeNullAuth() throws {
        #expect(try outcome("auth == null", auth: .null) == .granted)
        #expect(try outcome("auth.uid !== 'x'", auth: .null) == .granted)
        guard case .failed = try outcome("'users/' + auth.uid == 'users/'", auth: .null) else {
            Issue.record("concatenating null must fail")
            return
        }
    }

    @Test func snapshotMethods() throws {
        let data = #"{"a": {"b": 1, "c": "s", "d": true, ".priority": 5}, "e": {"f": 1}}"#
        let expressions = [
            "root.child('a/b').val() == 1", "root.child('a').child('c').isString()", "root.child('a/d').isBoolean()",
            "root.child('a/b').isNumber()", "root.hasChild('e/f')", "root.child('a').hasChildren()",
            "!root.child('a/b').hasChildren()", "root.child('a').hasChildren(['b', 'c'])", "!root.child('a').hasChildren(['b', 'z'])",
            "root.child('a').getPriority() == 5", "root.child('a/b').parent().child('c').val() == 's'",
            "root.child('e').val() == root.child('e').val()", "!root.child('bob@example.com').exists()",
        ]
        for expression in expressions {
            #expect(try outcome(expression, data: data) == .granted, "\(expression)")
        }
    }

    @Test(arguments: [
        ("/a/", "ba", true), ("/^a/", "ba", false), ("/^[a-c]+$/", "abcab", true), ("/^\\d{3}-\\d{4}$/", "555-1234", true),
        ("/^\\w+@\\w+\\.com$/", "me@host.com", true), ("/^(foo|bar)$/", "bar", true), ("/^(foo|bar)$/", "baz", false),
        ("/^FOO$/i", "foo", true), ("/\\{foo}/", "{foo}", true), ("/^a{2,}$/", "aaaa", true), ("/^a{2,3}$/", "aaaa", false),
        ("/^[^0-9]*$/", "abc", true), ("/^[^0-9]*$/", "ab1", false), ("/^.$/", "é", true), ("/^\\s?x$/", " x", true),
        ("/^(a|b)*c$/", "ababc", true), ("/colou?r/", "color", true),
    ])
    func regularExpressions(_ regex: String, _ input: String, _ matches: Bool) throws {
        let expression = "'\(input)'.matches(\(regex))"
        #expect(try outcome(expression) == (matches ? .granted : .false), "\(expression)")
    }

    @Test(arguments: [
        "/x/g", "/(^foo$|bar)/", "/^(foo|)$/", "/a**/", "/(?=a)/", "/(a)\\1/", "/a*?/", "/[b-a]/", "/(a/", "/a)/",
        "/a{3,2}/",
    ])
    func regexOutsideTheSubsetIsRefused(_ regex: String) {
        let source = #"{"rules": {".read": "'x'.matches(\#(regex.replacing("\\", with: "\\\\")))"}}"#
        #expect(throws: RulesError.self, "\(regex)") { try RulesDocument(source: source) }
    }

    @Test(arguments: [
        "root.doesNotExist()", "root.val().notFound == 1", "auth.foo.notFound()", "hasChildren('foo', 'bar')",
        "root.hasChildren('foo', 'bar')", "auth.foo.contains(7)", "root.hasChildren(['foo', 7])", "root['exi' + 'sts']()",
        "(2**2) == 4", "$color == 'red'", "newData.exists()", "root.exists;", "root", "'foo'", "null", "root.exists() ? 7 : true",
        "1 < true", "-'a' == 1", "!7", "root.child(7).exists()", "root.foo",
    ])
    func deployTimeTypeErrors(_ expression: String) {
        let quoted = JSONWriter.string(.string(expression))
        #expect(throws: RulesError.self, "\(expression)") { try RulesDocument(source: #"{"rules": {".read": \#(quoted)}}"#) }
    }

    @Test func errorsNameTheLineAndColumn() {
        let source = "{\n  \"rules\": {\n    \"a\": {\n      \".read\": \"skies === 'blue'\"\n    }\n  }\n}"
        #expect {
            try RulesDocument(source: source)
        } throws: { error in
            guard let error = error as? RulesError else { return false }
            return error.line == 4 && error.column == 7 && error.problem.contains("unknown variable 'skies'")
        }
    }

    @Test func queryMembersOnlyInReadRules() {
        #expect(throws: RulesError.self) { try RulesDocument(source: #"{"rules": {".write": "query.limitToFirst == 1"}}"#) }
        #expect(throws: Never.self) {
            try RulesDocument(source: #"{"rules": {".write": "newData.val() == (data.val() == null ? now : data.val())"}}"#)
        }
    }
}

/// What an explained decision records of each rule: its `$` variables.
@Suite struct ExplanationTests {
    @Test func eachEvaluationNamesTheVariablesInScope() throws {
        let harness = try RulesHarness(
            #"{"rules": {"rooms": {"$room": {"members": {"$uid": {".write": "$uid == 'x'"}}}}}}"#, data: "null")
        let path = try DatabasePath(writeLocation: "/rooms/r1/members/u7")
        let decision = harness.rules.checkWrite(
            [path], by: RuleRequest(auth: .null, now: harness.now), before: harness.tree, after: harness.tree, explain: true)
        let evaluation = try #require(decision.evaluations.first)
        #expect(evaluation.variables.map(\.name) == ["$room", "$uid"])
        #expect(evaluation.variables.map(\.value) == ["r1", "u7"])
    }
}
