import Foundation
import HearthApp
import HearthTestSupport
import HearthTesting
import Testing

@testable import HearthDatabase

/// `isPersistenceEnabled`: the cache and the pending writes outlive the app (spec §17.11).
@Suite(.serialized) struct PersistenceTests {
    /// A persistent database for app `name` (reconfigured after a delete, as a restarted app).
    private func persistentDatabase(_ server: TestHearth, name: String) -> (FirebaseApp, Database) {
        Database.persistenceRoot = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sdk-persistence").path
        let options = FirebaseOptions(googleAppID: "1:1234:ios:abcd", gcmSenderID: "1234")
        options.databaseURL = server.databaseURL
        FirebaseApp.configure(name: name, options: options)
        let app = FirebaseApp.app(name: name)!
        let database = Database.database(app: app)
        database.isPersistenceEnabled = true
        return (app, database)
    }

    @Test func cacheAndPendingWritesSurviveARestart() async throws {
        try await withServer { server in
            let name = "persist-\(UUID().uuidString)"
            try await makeDatabase(server, name: "seed").reference().child("notes").setValue(["a": 1])

            let (app, database) = persistentDatabase(server, name: name)
            let notes = database.reference().child("notes")
            let before = Recorder<String>()
            notes.observe(.value) { before.record(json($0.value)) }
            try await before.wait { $0.last == #"{"a":1}"# }

            await server.suspend()
            notes.child("b").setValue(2, withCompletionBlock: nil)
            for value in 0...10 { database.reference().child("counter").setValue(value, withCompletionBlock: nil) }
            try await before.wait { $0.last == #"{"a":1,"b":2}"# }
            await app.delete()

            let (_, restarted) = persistentDatabase(server, name: name)
            let after = Recorder<String>()
            restarted.reference().child("notes").observe(.value) { after.record(json($0.value)) }
            #expect(try await after.next(within: 5, "the cached value while the server is down") == #"{"a":1,"b":2}"#)

            try await server.resume()
            let reader = makeDatabase(server, name: "reader").reference()
            let counter = Recorder<Int>()
            reader.child("counter").observe(.value) { if let value = $0.value as? Int { counter.record(value) } }
            try await counter.wait(within: 20, "the restored writes") { $0.last == 10 }
            let stored = try await reader.child("notes").getData()
            #expect(json(stored.value) == #"{"a":1,"b":2}"#)
        }
    }

    @Test func childrenCachedOneByOneGiveNoValueAfterRestart() async throws {
        try await withServer { server in
            let name = "partial-\(UUID().uuidString)"
            try await makeDatabase(server, name: "seed").reference().child("list").setValue(["a": 1, "b": 2, "c": 3])
            let (app, database) = persistentDatabase(server, name: name)
            let seen = Recorder<String>()
            for key in ["a", "b"] {
                database.reference().child("list/\(key)").observe(.value) { seen.record("\($0.key)=\(json($0.value))") }
            }
            try await seen.wait { $0.count == 2 }
            await server.suspend()
            await app.delete()

            let (_, restarted) = persistentDatabase(server, name: name)
            let events = Recorder<String>()
            let list = restarted.reference().child("list")
            list.observe(.childAdded) { events.record("added \($0.key)") }
            list.observe(.value) { events.record("value \(json($0.value))") }
            try await events.wait { $0.count == 2 }
            #expect(events.all == ["added a", "added b"])
            #expect(try await events.staysQuiet(for: 0.5))
        }
    }
}
