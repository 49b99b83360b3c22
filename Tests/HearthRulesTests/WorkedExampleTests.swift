import HearthCore
import HearthRules
import Testing

/// The worked examples of the rules specification (§10), one test each.
@Suite struct WorkedExampleTests {
    let alice = try! RulesHarness.user("alice", claims: #"{"email": "a@example.com"}"#)
    let bob = try! RulesHarness.user("bob")
    let anon = RulesHarness.anonymous

    @Test func ownerOnlyUserRecords() throws {
        var db = try RulesHarness(
            #"{"rules": {"users": {"$uid": {".read": "auth != null && auth.uid == $uid", ".write": "auth != null && auth.uid == $uid"}}}}"#)
        #expect(try db.set("users/alice", #"{"name":"A"}"#, as: alice))
        #expect(try !db.set("users/alice", #"{"name":"B"}"#, as: bob))
        #expect(try db.value("users/alice/name") == #""A""#)
        #expect(try !db.canRead("users/alice", as: anon))
        #expect(try db.canRead("users/alice", as: alice))
        #expect(try !db.canRead("users", as: alice))
        #expect(try !db.set("users", #"{"alice":{"name":"A"}}"#, as: alice))
        #expect(try db.update("/", [("users/alice/name", #""B""#)], as: alice))
        #expect(try db.value("users/alice/name") == #""B""#)
    }

    @Test func readCascade() throws {
        let db = try RulesHarness(#"{"rules": {".read": true, "secret": {".read": false}}}"#)
        #expect(try db.canRead("secret", as: anon))
        #expect(try db.canRead("/", as: anon))
    }

    @Test func writeCascade() throws {
        var db = try RulesHarness(#"{"rules": {"a": {".write": "auth != null", "b": {".write": false}}}}"#)
        #expect(try db.set("a/b", "1", as: alice))
        #expect(try !db.set("a/b", "2", as: anon))
    }

    @Test func nonEmptyStringTitle() throws {
        var db = try RulesHarness(
            #"{"rules": {".write": true, "posts": {"$id": {"title": {".validate": "newData.isString() && newData.val().length > 0"}}}}}"#)
        #expect(try db.set("posts/p1/title", #""Hello""#, as: anon))
        #expect(try !db.set("posts/p1/title", #""""#, as: anon))
        #expect(try !db.set("posts/p1/title", "42", as: anon))
        #expect(try !db.set("posts/p1", #"{"title":""}"#, as: anon))
        #expect(try db.set("posts/p1/title", "null", as: anon))
        #expect(try db.set("posts/p1", #"{"body":"x"}"#, as: anon))
    }

    @Test func serverTimestampEqualsNow() throws {
        let rules =
            #"{"rules": {"msgs": {"$id": {".write": true, "createdAt": {".validate": "newData.isNumber() && newData.val() == now"}}}}}"#
        var db = try RulesHarness(rules)
        #expect(try db.set("msgs/m1", #"{"createdAt": {".sv":"timestamp"}}"#, as: anon))
        #expect(try !db.set("msgs/m2", #"{"createdAt": 1234}"#, as: anon))
        var past = try RulesHarness(rules.replacing("== now", with: "<= now"))
        #expect(try past.set("msgs/m1", #"{"createdAt": 1234}"#, as: anon))
        #expect(try !past.set("msgs/m1", #"{"createdAt": 99999999999999}"#, as: anon))
    }

    @Test func requiredChildren() throws {
        let rules = #"""
            {"rules": {".write": true,
              "people": {"$id": {".validate": "newData.hasChildren(['name', 'age'])",
                                 "age": {".validate": "newData.isNumber()"}}}}}
            """#
        var db = try RulesHarness(rules)
        #expect(try !db.set("people/p", #"{"name":"A"}"#, as: anon))
        #expect(try db.set("people/p", #"{"name":"A","age":30}"#, as: anon))
        #expect(try db.set("people/p/name", #""B""#, as: anon))
        #expect(try !db.set("people/p/age", "null", as: anon))
        #expect(try !db.set("people/p/age", #""x""#, as: anon))
        #expect(try db.set("people/p", "null", as: anon))
        #expect(try db.update("people/p", [("name", #""C""#), ("age", "31")], as: anon))
        #expect(try db.value("people/p") == #"{"age":31,"name":"C"}"#)
    }

    @Test func counterThatOnlyIncreasesByOne() throws {
        let rules =
            #"{"rules": {"counter": {".write": "auth != null", ".validate": "newData.isNumber() && newData.val() == data.val() + 1"}}}"#
        var db = try RulesHarness(rules, data: #"{"counter": 5}"#)
        #expect(try !db.set("counter", "7", as: alice))
        #expect(try db.set("counter", "6", as: alice))
        #expect(try db.set("counter", "null", as: alice))
        #expect(try !db.set("counter", "1", as: alice))
        let fixed = rules.replacing("data.val() + 1", with: "(data.exists() ? data.val() + 1 : 1)")
        var created = try RulesHarness(fixed)
        #expect(try created.set("counter", "1", as: alice))
    }

    @Test func unknownChildrenRejected() throws {
        var db = try RulesHarness(
            #"{"rules": {".write": true, "widget": {"title": {".validate": true}, "color": {".validate": true}, "$other": {".validate": false}}}}"#
        )
        #expect(try db.set("widget", #"{"title":"t","color":"red"}"#, as: anon))
        #expect(try !db.set("widget", #"{"title":"t","size":3}"#, as: anon))
        #expect(try !db.set("widget/size", "3", as: anon))
        #expect(try db.set("widget/size", "null", as: anon))
    }

    @Test func multiPathUpdateIsAllOrNothing() throws {
        var db = try RulesHarness(#"{"rules": {"a": {".write": true}, "b": {".write": false}}}"#)
        #expect(try !db.update("/", [("a", "1"), ("b", "2")], as: anon))
        #expect(try db.value("a") == "null")
        #expect(try db.update("/", [("a", "1")], as: anon))
    }

    @Test func queryLimitRule() throws {
        let db = try RulesHarness(#"{"rules": {"messages": {".read": "query.orderByKey && query.limitToFirst <= 100"}}}"#)
        #expect(try db.canRead("messages", query: QueryParams(index: .key, limit: 50), as: anon))
        #expect(try !db.canRead("messages", query: QueryParams(index: .key, limit: 200), as: anon))
        #expect(try !db.canRead("messages", as: anon))
        #expect(try !db.canRead("messages", query: QueryParams(index: .child(DatabasePath("ts")), limit: 10), as: anon))
    }

    @Test func queryOwnerFilterRule() throws {
        let db = try RulesHarness(
            #"{"rules": {"items": {".indexOn": "owner", ".read": "auth != null && query.orderByChild == 'owner' && query.equalTo == auth.uid"}}}"#
        )
        func owner(_ uid: String) throws -> QueryParams {
            let bound = QueryParams.Bound(value: .string(uid))
            return QueryParams(index: .child(try DatabasePath("owner")), start: bound, end: bound)
        }
        #expect(try db.canRead("items", query: owner("alice"), as: alice))
        #expect(try !db.canRead("items", query: owner("bob"), as: alice))
        #expect(try !db.canRead("items", as: alice))
    }

    @Test func captureUsedAsString() throws {
        var db = try RulesHarness(#"{"rules": {"rooms": {"$room_id": {"topic": {".write": "$room_id.contains('public')"}}}}}"#)
        #expect(try db.set("rooms/public-1/topic", #""x""#, as: anon))
        #expect(try !db.set("rooms/private/topic", #""x""#, as: anon))
    }

    @Test func lookupThroughRoot() throws {
        var db = try RulesHarness(
            #"{"rules": {"posts": {".write": "root.child('admins').child(auth.uid).val() == true"}}}"#,
            data: #"{"admins": {"alice": true}}"#)
        #expect(try db.set("posts/1", #""x""#, as: alice))
        #expect(try !db.set("posts/2", #""x""#, as: bob))
        #expect(try !db.set("posts/3", #""x""#, as: anon))
    }

    @Test func missingClaimVersusMethodOnMissingClaim() throws {
        let db = try RulesHarness(
            #"{"rules": {"a": {".read": "auth.token.admin == true"}, "b": {".read": "auth.token.email.endsWith('@example.com')"}}}"#)
        #expect(try !db.canRead("a", as: bob))
        #expect(try !db.canRead("b", as: bob))
        #expect(try db.canRead("b", as: alice))
    }

    @Test func regexValidation() throws {
        var db = try RulesHarness(
            #"{"rules": {".write": true, "usernames": {"$name": {".validate": "$name.matches(/^[a-z0-9_]{3,16}$/) && newData.val() == auth.uid"}}}}"#
        )
        #expect(try !db.set("usernames/ab", #""alice""#, as: alice))
        #expect(try db.set("usernames/al_1", #""alice""#, as: alice))
        #expect(try !db.set("usernames/AL_1", #""alice""#, as: alice))
        #expect(throws: RulesError.self) { try RulesDocument(source: #"{"rules": {".read": "'a'.matches(/x/g)"}}"#) }
    }

    @Test func createOnlyRecords() throws {
        var db = try RulesHarness(#"{"rules": {"docs": {"$id": {".write": "data.val() == null"}}}}"#)
        #expect(try db.set("docs/1", #""a""#, as: anon))
        #expect(try !db.set("docs/1", #""b""#, as: anon))
        #expect(try !db.set("docs/1", "null", as: anon))
    }

    @Test func forbidDeletionThroughWrite() throws {
        var db = try RulesHarness(
            #"{"rules": {"msgs": {"$id": {".write": "newData.exists()", ".validate": "newData.hasChildren(['text'])"}}}}"#)
        #expect(try db.set("msgs/1", #"{"text":"hi"}"#, as: anon))
        #expect(try !db.set("msgs/1", #"{"x":1}"#, as: anon))
        #expect(try !db.set("msgs/1", "null", as: anon))
        var open = try RulesHarness(#"{"rules": {"msgs": {"$id": {".write": true, ".validate": "newData.hasChildren(['text'])"}}}}"#)
        #expect(try open.set("msgs/1", #"{"text":"hi"}"#, as: anon))
        #expect(try open.set("msgs/1", "null", as: anon))
    }

    @Test func setVersusUpdateAgainstStructuralValidate() throws {
        let rules = #"{"rules": {"profile": {".write": true, ".validate": "newData.hasChildren(['name', 'email'])"}}}"#
        var db = try RulesHarness(rules, data: #"{"profile": {"name":"A","email":"a@x"}}"#)
        #expect(try db.update("profile", [("name", #""B""#)], as: anon))
        #expect(try !db.set("profile", #"{"name":"C"}"#, as: anon))
        #expect(try db.value("profile/name") == #""B""#)
    }

    @Test func memberOfNullAuthIsNotAnError() throws {
        let db = try RulesHarness(#"{"rules": {".read": "auth.uid != 'banned'"}}"#)
        #expect(try db.canRead("/", as: anon))
    }

    @Test(arguments: [
        #"{"rules": {".read": "7"}}"#,
        #"{"rules": {".read": "auth.x == 1 ? 7 : true"}}"#,
        #"{"rules": {".read": "skies === 'blue'"}}"#,
        #"{"rules": {".read": "root.child('x') != null"}}"#,
        #"{"rules": {".read": "root.val() > true"}}"#,
        #"{"rules": {".read": "data.val().matches('/x/')"}}"#,
        #"{"rules": {".read": "query.foo == 1"}}"#,
        #"{"rules": {".read": "a = 1"}}"#,
        #"{"rules": {"$a": {}, "$b": {}}}"#,
        #"{"rules": {".indexOn": 5}}"#,
        #"{"rules": {".foo": true}}"#,
    ])
    func deployTimeRejections(_ source: String) {
        #expect(throws: RulesError.self) { try RulesDocument(source: source) }
    }
}
