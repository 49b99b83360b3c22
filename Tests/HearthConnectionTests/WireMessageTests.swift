import HearthCore
import Testing

@testable import HearthConnection

@Suite struct WireMessageTests {
    @Test func encodesRequestsInTheDataEnvelope() {
        let body = JSONValue.members([("p", .string("/a/b")), ("d", .number(.int(1))), ("h", nil)])
        #expect(ClientMessage.request(number: 7, action: .put, body: body) == #"{"t":"d","d":{"r":7,"a":"p","b":{"p":"/a/b","d":1}}}"#)
        #expect(
            ClientMessage.request(number: 1, action: .onDisconnectCancel, body: .members([("p", .string("/x")), ("d", .null)]))
                == #"{"t":"d","d":{"r":1,"a":"oc","b":{"p":"/x","d":null}}}"#)
    }

    @Test func decodesTheHandshake() throws {
        let text = #"{"t":"c","d":{"t":"h","d":{"ts":1533570139211,"v":"5","h":"127.0.0.1:9000","s":"abc"}}}"#
        #expect(
            try ServerMessage.decode(text)
                == .handshake(Handshake(timestamp: 1_533_570_139_211, host: "127.0.0.1:9000", sessionID: "abc")))
    }

    @Test func decodesControlMessages() throws {
        #expect(try ServerMessage.decode(#"{"t":"c","d":{"t":"r","d":"other:9000"}}"#) == .redirect(host: "other:9000"))
        #expect(try ServerMessage.decode(#"{"t":"c","d":{"t":"s","d":"bye"}}"#) == .shutdown(reason: "bye"))
        #expect(try ServerMessage.decode(#"{"t":"c","d":{"t":"e","d":"too big"}}"#) == .serverError("too big"))
        #expect(try ServerMessage.decode(#"{"t":"c","d":{"t":"o","d":{}}}"#) == .ignoredControl(type: "o"))
    }

    @Test func decodesResponsesAndPushes() throws {
        #expect(
            try ServerMessage.decode(#"{"t":"d","d":{"r":3,"b":{"s":"ok","d":{"w":["no_index"]}}}}"#)
                == .response(request: 3, status: "ok", data: json(#"{"w":["no_index"]}"#)))
        #expect(
            try ServerMessage.decode(#"{"t":"d","d":{"a":"d","b":{"p":"a/b","d":{"x":1},"t":2}}}"#)
                == .push(action: "d", body: json(#"{"p":"a/b","d":{"x":1},"t":2}"#)))
    }

    @Test func refusesWhatIsNotAMessage() {
        #expect(throws: WireMessageError.self) { try ServerMessage.decode("{") }
        #expect(throws: WireMessageError.self) { try ServerMessage.decode(#"{"t":"x","d":{}}"#) }
        #expect(throws: WireMessageError.self) { try ServerMessage.decode(#"{"t":"d","d":{"r":"3","b":{"s":"ok"}}}"#) }
        #expect(throws: WireMessageError.self) { try ServerMessage.decode(#"{"t":"c","d":{"t":"h","d":{"ts":1.5}}}"#) }
    }

    @Test func buildsTheWebSocketURL() {
        let target = ConnectionTarget(host: "ignored", namespace: "demo-default-rtdb", secure: false)
        #expect(target.webSocketURL(host: "127.0.0.1:9000", lastSessionID: nil) == "ws://127.0.0.1:9000/.ws?v=5&ns=demo-default-rtdb")
        let secure = ConnectionTarget(host: "h", namespace: "ns", secure: true)
        #expect(secure.webSocketURL(host: "h", lastSessionID: "S1") == "wss://h/.ws?v=5&ns=ns&ls=S1")
    }
}
