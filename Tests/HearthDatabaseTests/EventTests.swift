import Foundation
import HearthDatabase
import HearthTestSupport
import Testing

/// Local events, their order, reverts and query windows (spec §17.2–§17.5).
@Suite(.serialized) struct EventTests {
    @Test func localWritesRaiseEventsBeforeTheServerAnswers() async throws {
        try await withServer { server in
            let database = makeDatabase(server)
            let ref = database.reference().child("offline")
            let values = Recorder<String>()
            ref.observe(.value) { values.record(json($0.value)) }
            #expect(try await values.next() == "null")
            database.goOffline()
            let completions = Recorder<String>()
            ref.child("a").setValue(1) { error, _ in completions.record("a \(error == nil)") }
            ref.child("b").setValue(2) { error, _ in completions.record("b \(error == nil)") }
            #expect(try await values.next() == #"{"a":1}"#)
            #expect(try await values.next() == #"{"a":1,"b":2}"#)
            #expect(try await completions.staysQuiet(for: 0.5))
            database.goOnline()
            #expect(try await completions.next() == "a true")
            #expect(try await completions.next() == "b true")
            let stored = try await makeDatabase(server).reference().child("offline").getData()
            #expect(json(stored.value) == #"{"a":1,"b":2}"#)
        }
    }

    @Test func deniedWriteIsRevertedWithPermissionDenied() async throws {
        let rules = #"{"rules":{".read":true,"open":{".write":true},"locked":{".write":false}}}"#
        try await withServer(rules: rules) { server in
            let ref = makeDatabase(server).reference()
            let values = Recorder<String>()
            ref.child("locked").observe(.value) { values.record(json($0.value)) }
            #expect(try await values.next() == "null")
            let outcome = Recorder<NSError?>()
            ref.child("locked").setValue("mine") { error, _ in outcome.record(error as NSError?) }
            #expect(try await values.next() == #""mine""#)
            #expect(try await values.next() == "null")
            let error = try #require(try await outcome.next())
            #expect(error.domain == "com.firebase")
            #expect(error.code == 1)
            do {
                try await ref.child("locked").setValue("again")
                Issue.record("the write should have been refused")
            } catch {
                #expect((error as NSError).code == 1)
            }
            try await ref.child("open").setValue("fine")
        }
    }

    @Test func childEventsCarryPreviousKeysInFirebaseOrder() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("list")
            try await ref.setValue(["a": 1, "b": 2, "c": 3])
            let events = Recorder<String>()
            for type in [DataEventType.childAdded, .childChanged, .childRemoved, .childMoved] {
                ref.queryOrderedByValue().observe(
                    type,
                    andPreviousSiblingKeyWith: { snapshot, previous in
                        events.record("\(type) \(snapshot.key) \(previous ?? "nil")")
                    })
            }
            ref.queryOrderedByValue().observe(.value) { snapshot in
                let keys = snapshot.children.compactMap { ($0 as? DataSnapshot)?.key }
                events.record("value \(keys.joined(separator: ","))")
            }
            try await events.wait { $0.contains { $0.hasPrefix("value") } }
            #expect(events.all == ["childAdded a nil", "childAdded b a", "childAdded c b", "value a,b,c"])
            try await ref.updateChildValues(["a": 4, "b": NSNull(), "d": 0])
            try await events.wait { $0.filter { $0.hasPrefix("value") }.count == 2 }
            #expect(
                Array(events.all.dropFirst(4)) == [
                    "childRemoved b nil", "childAdded d nil", "childMoved a c", "childChanged a c", "value d,c,a",
                ])
        }
    }

    @Test func limitWindowSlidesAsChildrenComeAndGo() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("scores")
            try await ref.setValue(["a": 1, "b": 2, "c": 3])
            let events = Recorder<String>()
            let query = ref.queryOrderedByValue().queryLimited(toLast: 2)
            query.observe(.childAdded) { events.record("+\($0.key)") }
            query.observe(.childRemoved) { events.record("-\($0.key)") }
            query.observe(.value) { events.record("=\(json($0.value))") }
            try await events.wait { $0.contains { $0.hasPrefix("=") } }
            #expect(events.all == ["+b", "+c", #"={"b":2,"c":3}"#])
            let writer = makeDatabase(server, name: "writer").reference().child("scores")
            try await writer.child("d").setValue(10)
            try await events.wait { $0.count >= 6 }
            #expect(Array(events.all.dropFirst(3)) == ["-b", "+d", #"={"c":3,"d":10}"#])
            try await writer.child("d").removeValue()
            try await events.wait { $0.count >= 9 }
            #expect(Array(events.all.dropFirst(6)) == ["-d", "+b", #"={"b":2,"c":3}"#])
        }
    }

    @Test func serverTimestampIsEstimatedThenReplaced() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("stamp")
            let values = Recorder<Double>()
            ref.observe(.value) { snapshot in
                if let number = snapshot.value as? NSNumber { values.record(number.doubleValue) }
            }
            try await ref.setValue(ServerValue.timestamp())
            let estimate = try await values.next()
            #expect(abs(estimate - Date().timeIntervalSince1970 * 1000) < 5000)
        }
    }

    /// Spec §17.13.14: increments resolve locally against the visible value, offline too.
    @Test func offlineIncrementsResolveAgainstTheVisibleValue() async throws {
        try await withServer { server in
            let database = makeDatabase(server)
            let ref = database.reference().child("counter")
            let values = Recorder<String>()
            ref.observe(.value) { values.record(json($0.value)) }
            #expect(try await values.next() == "null")
            database.goOffline()
            let writes: [Any] = [
                ServerValue.increment(1), 5, ServerValue.increment(1), "hello", ServerValue.increment(1),
                ["hello": "world"], ServerValue.increment(1),
            ]
            for value in writes { ref.setValue(value, withCompletionBlock: nil) }
            try await values.wait { $0.count == 8 }
            #expect(Array(values.all.dropFirst()) == ["1", "5", "6", #""hello""#, "1", #"{"hello":"world"}"#, "1"])
            database.goOnline()
        }
    }

    @Test func infoConnectedFollowsTheConnection() async throws {
        try await withServer { server in
            let database = makeDatabase(server)
            let states = Recorder<Bool>()
            database.reference(withPath: ".info/connected").observe(.value) { states.record($0.value as? Bool ?? false) }
            try await states.wait { $0.last == true }
            database.goOffline()
            try await states.wait { $0.last == false }
            database.goOnline()
            try await states.wait { $0.last == true }
        }
    }

    @Test func invalidDataIsRefusedWithoutWriting() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("bad")
            do {
                try await ref.setValue(["a.b": 1])
                Issue.record("a key with a dot must be refused")
            } catch {
                #expect((error as NSError).localizedDescription.contains("Invalid"))
            }
            do {
                try await ref.setValue(Date())
                Issue.record("a Date must be refused")
            } catch {
                #expect((error as NSError).localizedDescription.contains("Cannot store object of type"))
            }
            let stored = try await ref.getData()
            #expect(!stored.exists())
        }
    }
}
