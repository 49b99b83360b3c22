import HearthCore
import HearthTestSupport
import Testing

@testable import HearthConnection

/// The connection against a real Hearth server in this process.
@Suite(.timeLimit(.minutes(2))) struct LiveConnectionTests {
    @Test func handshakeReportsTheConnection() async throws {
        try await withServer { server in
            let client = TestClient(server: server)
            await client.run { $0.open() }
            let event = try await client.events.take("handshake") { if case .connected = $0 { true } else { false } }
            guard case .connected(let offset) = event else { return }
            // Same machine: the clocks agree.
            #expect(abs(offset) < 5_000)
            #expect(await client.run { $0.isConnected })
        }
    }

    @Test func listenGetsDataBeforeItsOkAndLaterChanges() async throws {
        try await withServer { server in
            let writer = TestClient(server: server)
            try await writer.connect()
            await writer.put("first", "/items/a", .number(.int(1)))
            #expect(try await writer.status(of: "first") == "ok")

            let reader = TestClient(server: server)
            try await reader.connect()
            await reader.listen("items", "/items")
            #expect(try await reader.listenStatus(of: "items") == "ok")
            let history = reader.events.all
            let push = history.firstIndex(of: .data(path: "/items", value: json(#"{"a":1}"#), isMerge: false, tag: nil))
            let answer = history.firstIndex(of: .listenAnswered("items", status: "ok", warnings: []))
            #expect(push != nil && answer != nil && push! < answer!)

            await writer.put("second", "/items/b", .string("two"))
            #expect(try await writer.status(of: "second") == "ok")
            try await reader.data(at: "/items/b", .string("two"))
        }
    }

    @Test func refusedWriteCompletesWithPermissionDenied() async throws {
        try await withServer(rules: #"{"rules":{".read":true,".write":false}}"#) { server in
            let client = TestClient(server: server)
            try await client.connect()
            await client.put("denied", "/a", .bool(true))
            #expect(try await client.status(of: "denied") == "permission_denied")
            await client.merge("denied merge", "/a", json(#"{"b":1}"#))
            #expect(try await client.status(of: "denied merge") == "permission_denied")
        }
    }

    @Test func refusedListenIsAnsweredAndForgotten() async throws {
        try await withServer(rules: #"{"rules":{".read":false,".write":false}}"#) { server in
            let client = TestClient(server: server)
            try await client.connect()
            await client.listen("secret", "/secret")
            #expect(try await client.listenStatus(of: "secret") == "permission_denied")
            #expect(await client.run { $0.requests.listens.isEmpty })
        }
    }

    @Test func mergeAndGet() async throws {
        try await withServer { server in
            let client = TestClient(server: server)
            try await client.connect()
            await client.merge("merge", "/m", json(#"{"a":1,"b/c":"x"}"#))
            #expect(try await client.status(of: "merge") == "ok")
            await client.get("read", "/m")
            await client.get("missing", "/nothing")
            let read = try await client.events.take("get") { if case .got("read", _) = $0 { true } else { false } }
            #expect(read == .got("read", .success(json(#"{"a":1,"b":{"c":"x"}}"#))))
            let missing = try await client.events.take("get") { if case .got("missing", _) = $0 { true } else { false } }
            #expect(missing == .got("missing", .success(.null)))
        }
    }

    @Test func getFailsWhenOfflineForThreeSeconds() async throws {
        // Never opened: nothing to send the read on.
        let client = TestClient(port: 1, namespace: "none")
        await client.get("offline", "/a")
        let event = try await client.events.take("offline failure") { if case .got = $0 { true } else { false } }
        #expect(event == .got("offline", .failure(.offline)))
    }

    @Test func longMessagesAreSplitAndReassembledBothWays() async throws {
        try await withServer { server in
            // Non-ASCII characters make UTF-16 and UTF-8 lengths differ.
            let text = String(repeating: "0123456789abcdé🐵", count: 6_000)
            #expect(text.utf16.count > 100_000)
            let writer = TestClient(server: server)
            try await writer.connect()
            await writer.put("big", "/big", .string(text))
            #expect(try await writer.status(of: "big") == "ok")

            let reader = TestClient(server: server)
            try await reader.connect()
            await reader.listen("big", "/big")
            try await reader.data(at: "/big", .string(text))
        }
    }

    @Test func reconnectsAfterServerRestartAndRestores() async throws {
        try await withServer { server in
            let client = TestClient(server: server)
            try await client.connect()
            await client.listen("room", "/room")
            #expect(try await client.listenStatus(of: "room") == "ok")

            await server.suspend()
            try await client.waitUntilDisconnected()
            await client.put("offline write", "/room/x", .number(.int(1)))
            #expect(await client.run { !$0.isConnected })

            try await server.resume()
            try await client.waitUntilConnected()
            #expect(try await client.status(of: "offline write") == "ok")
            // The listen was sent again and answered, and sees the write.
            #expect(try await client.listenStatus(of: "room") == "ok")
            try await client.data(at: "/room/x", .number(.int(1)))

            let other = TestClient(server: server)
            try await other.connect()
            await other.get("check", "/room")
            let read = try await other.events.take("get") { if case .got = $0 { true } else { false } }
            #expect(read == .got("check", .success(json(#"{"x":1}"#))))
        }
    }

    @Test func interruptQueuesWritesUntilResume() async throws {
        try await withServer { server in
            let client = TestClient(server: server)
            try await client.connect()
            await client.run { $0.interrupt() }
            try await client.waitUntilDisconnected()
            #expect(await client.run { !$0.isConnected })
            await client.put("queued", "/q", .string("v"))
            #expect(await client.run { $0.requests.writes.count } == 1)

            await client.run { $0.resume() }
            try await client.waitUntilConnected()
            #expect(try await client.status(of: "queued") == "ok")
        }
    }

    @Test func transactionOnTheWireFailsOnDisconnect() async throws {
        try await withServer { server in
            let client = TestClient(server: server)
            try await client.connect()
            let events = client.events
            await client.run { connection in
                connection.put(path: "/t".db, data: .number(.int(1)), hash: "") { status, _ in
                    events.post(.completed("transaction", status: status))
                }
                connection.interrupt()
            }
            #expect(try await client.status(of: "transaction") == "disconnect")
        }
    }

    @Test func purgeCancelsQueuedWritesInOrder() async throws {
        let client = TestClient(port: 1, namespace: "none")
        let events = client.events
        await client.put("a", "/a", .number(.int(1)))
        await client.merge("b", "/b", json(#"{"c":1}"#))
        await client.put("c", "/a", .number(.int(2)))
        await client.run { connection in
            connection.onDisconnectPut(path: "/d".db, data: .null) { status, _ in events.post(.completed("d", status: status)) }
            connection.purgeOutstandingWrites()
        }
        #expect(
            client.events.all == ["a", "b", "c", "d"].map { Observed.completed($0, status: "write_canceled") })
        #expect(await client.run { $0.requests.writes.isEmpty && $0.requests.onDisconnects.isEmpty })
    }

    @Test func onDisconnectRunsWhenTheConnectionEnds() async throws {
        try await withServer { server in
            let leaving = TestClient(server: server)
            try await leaving.connect()
            let events = leaving.events
            await leaving.run { connection in
                connection.onDisconnectPut(path: "/presence/me".db, data: .string("gone")) { status, _ in
                    events.post(.completed("presence", status: status))
                }
            }
            #expect(try await leaving.status(of: "presence") == "ok")

            let watcher = TestClient(server: server)
            try await watcher.connect()
            await watcher.listen("presence", "/presence")
            #expect(try await watcher.listenStatus(of: "presence") == "ok")
            await leaving.run { $0.interrupt() }
            try await watcher.data(at: "/presence/me", .string("gone"))
        }
    }

    @Test func authTokenIsSentBeforeRestoring() async throws {
        try await withServer(rules: #"{"rules":{".read":false,".write":false}}"#) { server in
            let client = TestClient(server: server)
            // `owner` is the development admin credential: rules do not apply.
            await client.run { $0.setAuthToken("owner") }
            await client.put("admin write", "/a", .number(.int(1)))
            try await client.connect()
            #expect(try await client.status(of: "admin write") == "ok")
        }
    }

    @Test func refusedTokenIsReportedAndReplaced() async throws {
        try await withServer { server in
            let client = TestClient(server: server)
            await client.run { $0.setAuthToken("not a token") }
            try await client.connect()
            try await client.events.take("auth refusal") { $0 == .authRevoked(status: "invalid_token") }
            try await client.waitUntilDisconnected()
            await client.run { $0.setAuthToken(nil) }
            try await client.waitUntilConnected()
            await client.put("signed out write", "/a", .number(.int(1)))
            #expect(try await client.status(of: "signed out write") == "ok")
        }
    }

    @Test func signingOutRevokesListensTheRulesNoLongerAllow() async throws {
        try await withServer(rules: #"{"rules":{".read":"auth != null",".write":false}}"#) { server in
            let client = TestClient(server: server)
            await client.run { $0.setAuthToken("owner") }
            try await client.connect()
            await client.listen("secret", "/secret")
            #expect(try await client.listenStatus(of: "secret") == "ok")
            await client.run { $0.setAuthToken(nil) }
            let event = try await client.events.take("revocation") { if case .listenRevoked = $0 { true } else { false } }
            #expect(event == .listenRevoked(path: "/secret", query: nil))
            #expect(await client.run { $0.requests.listens.isEmpty })
        }
    }
}
