import Foundation
import HearthDatabase
import HearthTestSupport
import Testing

/// Connection loss and return: restarts, onDisconnect, purging, streams and Codable.
@Suite(.serialized) struct LifecycleTests {
    @Test func listenersCatchUpAfterTheServerRestarts() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("room")
            let values = Recorder<String>()
            ref.observe(.value) { values.record(json($0.value)) }
            try await ref.setValue(["topic": "before"])
            try await values.wait { $0.last == #"{"topic":"before"}"# }

            await server.suspend()
            ref.child("offline").setValue(true, withCompletionBlock: nil)
            try await values.wait { $0.last == #"{"offline":true,"topic":"before"}"# }
            try await server.resume()

            let writer = makeDatabase(server, name: "writer").reference().child("room")
            try await writer.child("topic").setValue("after")
            try await values.wait(within: 20) { $0.last == #"{"offline":true,"topic":"after"}"# }
            let stored = try await writer.getData()
            #expect(json(stored.value) == #"{"offline":true,"topic":"after"}"#)
        }
    }

    @Test func flakyNetworkLosesNoWriteAndKeepsListeners() async throws {
        try await withServer { server in
            let proxy = try await DroppingProxy(upstreamPort: server.port, lifetimes: 150...600)
            let flaky = makeDatabase(server, name: "flaky", url: "http://127.0.0.1:\(proxy.port)?ns=\(server.namespace)")
            let ref = flaky.reference().child("flaky")
            let latest = Recorder<[String: Any]>()
            ref.observe(.value) { latest.record($0.value as? [String: Any] ?? [:]) }
            let direct = makeDatabase(server, name: "direct").reference().child("flaky")
            for index in 0..<60 {
                ref.child("k\(index)").setValue(index, withCompletionBlock: nil)
                if index % 10 == 0 { try await direct.child("remote\(index)").setValue(index) }
                try await Task.sleep(for: .milliseconds(25))
            }
            proxy.stopDropping()
            try await latest.wait(within: 60, "every write and remote change") { $0.last?.count == 66 }
            let server = Recorder<[String: Any]>()
            direct.observe(.value) { server.record($0.value as? [String: Any] ?? [:]) }
            try await server.wait(within: 60, "every write on the server") { $0.last?.count == 66 }
            let stored = try #require(server.all.last)
            let wrong = (0..<60).filter { index in
                let value = stored["k\(index)"] as? Int
                return value != index
            }
            #expect(wrong.isEmpty, "\(wrong)")
            #expect(proxy.cutCount > 0)
            await proxy.close()
        }
    }

    @Test func onDisconnectWritesRunWhenTheClientLeaves() async throws {
        try await withServer { server in
            let leaving = makeDatabase(server, name: "leaving")
            let presence = leaving.reference().child("presence/ada")
            try await presence.setValue("online")
            try await presence.onDisconnectSetValue("offline")
            try await leaving.reference().child("presence/bob").onDisconnectRemoveValue()

            let watcher = makeDatabase(server, name: "watcher").reference().child("presence/ada")
            let seen = Recorder<String>()
            watcher.observe(.value) { seen.record(json($0.value)) }
            try await seen.wait { $0.last == #""online""# }

            let local = Recorder<String>()
            presence.observe(.value) { local.record(json($0.value)) }
            try await local.wait { $0.last == #""online""# }
            leaving.goOffline()
            try await local.wait { $0.last == #""offline""# }
            try await seen.wait { $0.last == #""offline""# }
        }
    }

    /// Spec §17.13.17: the writer sees its own onDisconnect writes as one change.
    @Test func onDisconnectWritesRaiseOneLocalValue() async throws {
        try await withServer { server in
            let database = makeDatabase(server)
            let ref = database.reference().child("w")
            let values = Recorder<String>()
            ref.observe(.value) { values.record(json($0.value)) }
            #expect(try await values.next() == "null")
            try await ref.child("foo").onDisconnectSetValue(["bar": "a", "baz": "b"])
            try await ref.child("foo").onDisconnectUpdateChildValues(["bam": "c"])
            try await ref.child("foo/baz").onDisconnectRemoveValue()
            database.goOffline()
            try await values.wait { $0.count == 2 }
            #expect(values.all.last == #"{"foo":{"bam":"c","bar":"a"}}"#)
            #expect(try await values.staysQuiet())
        }
    }

    /// Spec §17.13.16: with writes pending offline, getData answers from them, no request.
    @Test func getDataAnswersFromPendingWritesOffline() async throws {
        try await withServer { server in
            let database = makeDatabase(server)
            database.goOffline()
            let ref = database.reference().child("n")
            ref.setValue(["foo": "bar"], withCompletionBlock: nil)
            let whole = try await ref.getData()
            #expect(json(whole.value) == #"{"foo":"bar"}"#)
            let child = try await ref.child("foo").getData()
            #expect(child.value as? String == "bar")
            database.goOnline()
        }
    }

    @Test func cancelledOnDisconnectDoesNotRun() async throws {
        try await withServer { server in
            let leaving = makeDatabase(server, name: "leaving")
            let ref = leaving.reference().child("status")
            try await ref.setValue("here")
            try await ref.onDisconnectRemoveValue()
            try await ref.cancelDisconnectOperations()
            leaving.goOffline()
            let stored = try await makeDatabase(server, name: "reader").reference().child("status").getData()
            #expect(stored.value as? String == "here")
        }
    }

    @Test func purgeRevertsAndCancelsQueuedWrites() async throws {
        try await withServer { server in
            let database = makeDatabase(server)
            let ref = database.reference().child("purge")
            let values = Recorder<String>()
            ref.observe(.value) { values.record(json($0.value)) }
            #expect(try await values.next() == "null")
            database.goOffline()
            let completions = Recorder<String>()
            ref.child("foo").setValue(1) { error, _ in completions.record("foo-1 \((error as NSError?)?.code ?? 0)") }
            ref.updateChildValues(["bar": 2]) { error, _ in completions.record("bar \((error as NSError?)?.code ?? 0)") }
            ref.child("foo").setValue(3) { error, _ in completions.record("foo-2 \((error as NSError?)?.code ?? 0)") }
            try await values.wait { $0.last == #"{"bar":2,"foo":3}"# }
            database.purgeOutstandingWrites()
            try await values.wait { $0.last == "null" }
            try await completions.wait { $0.count == 3 }
            #expect(completions.all == ["foo-1 3", "bar 3", "foo-2 3"])
            database.goOnline()
            #expect(try await values.staysQuiet(for: 0.5))
            let stored = try await makeDatabase(server, name: "reader").reference().child("purge").getData()
            #expect(!stored.exists())
        }
    }

    @Test func transactionOnDataNotYetCachedRetriesOnTheServersValue() async throws {
        try await withServer { server in
            try await makeDatabase(server, name: "setup").reference().child("counter").setValue(41)
            let ref = makeDatabase(server).reference().child("counter")
            let inputs = Recorder<String>()
            let (committed, snapshot) = try await ref.runTransactionBlock { data in
                inputs.record(json(data.value))
                data.value = (data.value as? Int ?? 0) + 1
                return .success(withValue: data)
            }
            #expect(committed)
            #expect(snapshot.value as? Int == 42)
            #expect(inputs.all == ["null", "41"])
        }
    }

    /// Spec §17.13.12: transactions at /t/foo, /t and /t/bar, then a set of /t/foo.
    @Test func setCancelsPendingTransactionsAndRerunsAffectedOnes() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("t")
            let outcomes = Recorder<String>()
            func run(_ location: DatabaseReference, _ name: String, _ value: Any) {
                location.runTransactionBlock(
                    { data in
                        data.value = value
                        return .success(withValue: data)
                    },
                    andCompletionBlock: { error, committed, _ in
                        outcomes.record("\(name) \(committed) \(error?.localizedDescription ?? "-")")
                    })
            }
            run(ref.child("foo"), "first", "first")
            run(ref, "second", ["foo": "second", "bar": "second"])
            run(ref.child("bar"), "third", "third")
            ref.child("foo").setValue(0, withCompletionBlock: nil)
            try await outcomes.wait { $0.count == 3 }
            #expect(Set(outcomes.all) == ["first true -", "second false set", "third true -"])
            let stored = try await makeDatabase(server, name: "reader").reference().child("t").getData()
            #expect(json(stored.value) == #"{"bar":"third","foo":0}"#)
        }
    }

    /// Spec §17.13.18: queued transactions end once each, with `write_canceled`, newest first.
    @Test func purgeCancelsQueuedTransactionsOnce() async throws {
        try await withServer { server in
            let database = makeDatabase(server)
            let ref = database.reference().child("queued")
            _ = try await ref.getData()
            database.goOffline()
            let outcomes = Recorder<String>()
            for index in 1...2 {
                ref.child("n\(index)").runTransactionBlock(
                    { data in
                        data.value = index
                        return .success(withValue: data)
                    },
                    andCompletionBlock: { error, committed, _ in
                        outcomes.record("\(index) \(committed) \((error as NSError?)?.code ?? 0)")
                    })
            }
            try await Task.sleep(for: .milliseconds(100))
            database.purgeOutstandingWrites()
            try await outcomes.wait { $0.count == 2 }
            #expect(outcomes.all == ["2 false 3", "1 false 3"])
            database.goOnline()
            #expect(try await outcomes.staysQuiet(for: 0.5))
        }
    }

    @Test func abortedTransactionWritesNothing() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("untouched")
            try await ref.setValue("keep")
            let (committed, snapshot) = try await ref.runTransactionBlock { _ in .abort() }
            #expect(!committed)
            #expect(snapshot.value as? String == "keep" || snapshot.value is NSNull)
            let stored = try await makeDatabase(server, name: "reader").reference().child("untouched").getData()
            #expect(stored.value as? String == "keep")
        }
    }

    @Test func streamsEndWhenCancelled() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("stream")
            try await ref.setValue(["a": 1])
            var seen: [String] = []
            for try await event in ref.childEvents([.childAdded]) {
                seen.append(event.snapshot.key)
                if seen.count == 1 { try await ref.child("b").setValue(2) }
                if seen.count == 2 { break }
            }
            #expect(seen == ["a", "b"])
            var values: [String] = []
            for try await snapshot in ref.snapshots {
                values.append(json(snapshot.value))
                break
            }
            #expect(values == [#"{"a":1,"b":2}"#])
        }
    }

    struct Profile: Codable, Equatable {
        var name: String
        var age: Int
        var tags: [String]
    }

    @Test func codableValuesRoundTrip() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("profiles/ada")
            let profile = Profile(name: "Ada", age: 36, tags: ["math", "engines"])
            try await ref.setValue(from: profile)
            let snapshot = try await makeDatabase(server, name: "reader").reference().child("profiles/ada").getData()
            #expect(try snapshot.data(as: Profile.self) == profile)
            #expect(throws: (any Error).self) { try snapshot.childSnapshot(forPath: "missing").data(as: Profile.self) }
        }
    }
}
