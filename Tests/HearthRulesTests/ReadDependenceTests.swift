import HearthCore
import HearthRules
import Testing

/// Which reads the rules decide without the data: those a namespace still loading may serve.
@Suite struct ReadDependenceTests {
    private func document(_ rules: String) throws -> RulesDocument {
        try RulesDocument(source: rules)
    }

    @Test func readsOfRulesThatNameOnlyAuthAndVariablesDoNotNeedTheData() throws {
        let rules = try document(
            #"""
            {"rules": {
              "public": {".read": true},
              "users": {"$uid": {".read": "auth != null && auth.uid == $uid"}},
              "rooms": {"$room": {".read": "root.child('members/' + $room + '/' + auth.uid).exists()"}},
              "posts": {".read": "data.child('published').val() === true"},
              "claims": {".read": "auth.token.data == 'x'"},
              "strings": {".read": "'data' == 'root'"}
            }}
            """#)
        #expect(!rules.readDependsOnData(at: try DatabasePath("public/anything/below")))
        #expect(!rules.readDependsOnData(at: try DatabasePath("users/ada")))
        #expect(!rules.readDependsOnData(at: try DatabasePath("elsewhere")))
        #expect(!rules.readDependsOnData(at: .root))
        #expect(!rules.readDependsOnData(at: try DatabasePath("strings")))
        #expect(rules.readDependsOnData(at: try DatabasePath("rooms/r1")))
        #expect(rules.readDependsOnData(at: try DatabasePath("posts/p1")))
        // A member named like a variable counts too: the answer errs on the side of the data.
        #expect(rules.readDependsOnData(at: try DatabasePath("claims")))
    }

    @Test func aRuleAboveThatReadsTheDataCountsBelow() throws {
        let rules = try document(#"{"rules": {".read": "root.child('open').val() == true", "a": {".read": true}}}"#)
        #expect(rules.readDependsOnData(at: try DatabasePath("a/b")))
        #expect(rules.readDependsOnData(at: .root))
    }
}
