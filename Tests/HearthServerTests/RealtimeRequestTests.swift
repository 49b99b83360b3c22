import HearthCore
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// Parsing of realtime messages, query objects and credentials, and onDisconnect cancellation.
@Suite struct RealtimeRequestTests {
    private func parse(_ text: String) throws(RealtimeProtocolError) -> RealtimeInbound {
        try RealtimeInbound.parse(Array(text.utf8))
    }

    @Test func messagesAreControlOrDataMessages() throws {
        #expect(try parse(#"{"t":"c","d":{"t":"p","d":{}}}"#) == .control(type: "p"))
        let request = try parse(#"{"t":"d","d":{"r":3,"a":"p","b":{"p":"/a","d":1}}}"#)
        guard case .request(3, "p", let body) = request else {
            Issue.record("not a put request: \(request)")
            return
        }
        #expect(body["d"] == .number(.int(1)))
    }

    @Test func malformedMessagesAreRefused() {
        #expect(throws: RealtimeProtocolError.self) { try parse("{nope") }
        #expect(throws: RealtimeProtocolError.self) { try parse("[1]") }
        #expect(throws: RealtimeProtocolError.self) { try parse(#"{"t":"x","d":{}}"#) }
        // Without an integer request number there is nothing to answer.
        #expect(throws: RealtimeProtocolError.self) { try parse(#"{"t":"d","d":{"r":"3","a":"p","b":{}}}"#) }
        // With one, the request gets a failure response.
        #expect(throws: RealtimeProtocolError.badRequest(4, "request without an action")) {
            try parse(#"{"t":"d","d":{"r":4,"b":{}}}"#)
        }
    }

    private func query(_ text: String) throws -> QueryParams {
        try WireQuery.parse(JSONParser.parse(text))
    }

    @Test func queryObjectsInBothClientEncodings() throws {
        let javascript = try query(#"{"i":".value","sp":1,"sn":"[MAX_NAME]","sin":false}"#)
        #expect(javascript.index == .value)
        #expect(javascript.start == QueryParams.Bound(value: .number(.int(1)), key: .maximum, inclusive: false))
        let mobile = try query(#"{"i":".value","sp":1,"sn":"[MAX_NAME]"}"#)
        #expect(mobile.start == QueryParams.Bound(value: .number(.int(1)), key: .maximum, inclusive: true))
        let child = try query(#"{"i":"a/b","ep":null,"l":5,"vf":"r"}"#)
        #expect(child.index == .child(try DatabasePath("a/b")))
        #expect(child.end == QueryParams.Bound(value: .null))
        #expect(child.limit == 5 && child.anchor == .last)
        #expect(try query("{}") == QueryParams.all)
    }

    @Test func aLegacyLimitWithoutViewFromAnchorsAtTheEndUnlessAStartIsGiven() throws {
        #expect(try query(#"{"l":2}"#).anchor == .last)
        #expect(try query(#"{"l":2,"sp":"a"}"#).anchor == .first)
    }

    @Test func invalidQueryObjectsAreRefused() {
        for text in [#"{"l":0}"#, #"{"l":1.5}"#, #"{"vf":"x","l":1}"#, #"{"i":"a.b"}"#, #"{"sp":{}}"#, #"{"sp":1,"sn":"a$"}"#, "[]"] {
            #expect(throws: RequestError.self, "\(text)") { try query(text) }
        }
    }

    @Test func cancellingOnDisconnectTrimsWritesAtAndAboveTheLocation() throws {
        let room = try DatabasePath("room")
        let a = try DatabasePath("room/a")
        var queue = OnDisconnectQueue()
        queue.add(.set(a, .null))
        queue.add(.set(room, .json(.object([]))))
        queue.add(.update(room, [(try DatabasePath("a/x"), .json(.bool(true))), (try DatabasePath("b"), .json(.bool(true)))]))
        queue.add(.set(try DatabasePath("other"), .json(.bool(true))))
        queue.cancel(at: a)
        #expect(queue.writes.map(\.path) == [room, room, try DatabasePath("other")])
        #expect(queue.writes[0].preserving == [a])
        guard case .update(let entries) = queue.writes[1].kind else {
            Issue.record("the update was not kept")
            return
        }
        #expect(entries.map(\.0) == [try DatabasePath("b")])
        #expect(queue.writes[2].preserving.isEmpty)
    }
}
