import Foundation
import HearthApp
import HearthDatabase
import HearthTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The rest of the Firebase Apple SDK's database surface, each against a live server.
@Suite(.serialized) struct APISurfaceTests {
    @Test func referencesNavigateAndNameTheirLocations() async throws {
        try await withServer { server in
            let database = makeDatabase(server)
            let ref = database.reference(withPath: "users/ada/profile")
            #expect(ref.key == "profile")
            #expect(ref.parent?.key == "ada")
            #expect(ref.root.key == nil)
            #expect(database.reference().parent == nil)
            #expect(ref.child("a/b").key == "b")
            #expect(ref.url == "http://127.0.0.1:\(server.port)/users/ada/profile?ns=\(server.namespace)")
            #expect(database.reference(fromURL: ref.url).url == ref.url)
            #expect(ref.database === database)
            let first = ref.childByAutoId().key!
            let second = ref.childByAutoId().key!
            #expect(first.count == 20 && first < second)
            #expect(Database.sdkVersion().isEmpty == false)
        }
    }

    /// The call shapes apps write with trailing closures, as with Firebase's Swift API.
    @Test func trailingClosureFormsCompileAndRun() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("shapes")
            let seen = Recorder<String>()
            ref.observe(.childAdded) { snapshot, previous in
                seen.record("added \(snapshot.key) \(previous ?? "nil")")
            } withCancel: { error in
                seen.record("cancel \(error)")
            }
            ref.child("a").setValue(1) { error, reference in seen.record("set \(error == nil) \(reference.key ?? "")") }
            try await seen.wait { $0.contains("set true a") && $0.contains("added a nil") }
            ref.getData { error, snapshot in seen.record("get \(error == nil) \(json(snapshot?.value))") }
            try await seen.wait { $0.contains(#"get true {"a":1}"#) }
            ref.child("b").runTransactionBlock { data in
                data.value = 2
                return TransactionResult.success(withValue: data)
            } andCompletionBlock: { error, committed, snapshot in
                seen.record("transaction \(committed) \(json(snapshot?.value))")
            }
            try await seen.wait { $0.contains("transaction true 2") }
            ref.child("c").onDisconnectRemoveValue { error, _ in seen.record("onDisconnect \(error == nil)") }
            ref.child("c").cancelDisconnectOperations { error, _ in seen.record("cancel \(error == nil)") }
            try await seen.wait { $0.contains("onDisconnect true") && $0.contains("cancel true") }
            #expect(ref.description() == ref.url)
            #expect("\(ref)" == ref.url)
            #expect(DataEventType(rawValue: 0) == .childAdded && DataEventType(rawValue: 4) == .value)
        }
    }

    @Test func databaseForURLAndEmulatorSettings() async throws {
        try await withServer { server in
            let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
            options.projectID = "demo-sdk"
            let name = "emulator-\(UUID().uuidString)"
            FirebaseApp.configure(name: name, options: options)
            let app = try #require(FirebaseApp.app(name: name))
            let database = Database.database(app: app, url: "https://\(server.namespace).firebaseio.com")
            #expect(Database.database(app: app, url: "https://\(server.namespace).firebaseio.com") === database)
            database.useEmulator(withHost: "127.0.0.1", port: server.port)
            try await database.reference().child("via-emulator").setValue(1)
            let read = try await makeDatabase(server).reference().child("via-emulator").getData()
            #expect(read.value as? Int == 1)
        }
    }

    @Test func snapshotsAnswerLikeFirebases() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("snap")
            try await ref.setValue(["b": ["x": 1], "a": "text", "c": true] as [String: Any], andPriority: 7)
            let snapshot = try await ref.getData()
            #expect(snapshot.exists())
            #expect(snapshot.key == "snap")
            #expect(snapshot.childrenCount == 3)
            #expect(snapshot.hasChildren())
            #expect(snapshot.hasChild("b/x"))
            #expect(!snapshot.hasChild("b/y"))
            #expect(snapshot.childSnapshot(forPath: "b/x").value as? Int == 1)
            #expect(!snapshot.childSnapshot(forPath: "nothing").exists())
            #expect(snapshot.childSnapshot(forPath: "nothing").value is NSNull)
            #expect((snapshot.priority as? NSNumber)?.intValue == 7)
            let exported = try #require(snapshot.valueInExportFormat() as? [String: Any])
            #expect((exported[".priority"] as? NSNumber)?.intValue == 7)
            let keys = snapshot.children.compactMap { ($0 as? DataSnapshot)?.key }
            #expect(keys == ["a", "b", "c"])
            #expect((snapshot.children.allObjects as? [DataSnapshot])?.count == 3)
        }
    }

    @Test func prioritiesOrderChildren() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("ranked")
            try await ref.child("low").setValue("l", andPriority: 1)
            try await ref.child("high").setValue("h", andPriority: 3)
            try await ref.child("mid").setValue("m")
            try await ref.child("mid").setPriority(2)
            let snapshot = try await ref.queryOrderedByPriority().getData()
            #expect(snapshot.children.compactMap { ($0 as? DataSnapshot)?.key } == ["low", "mid", "high"])
            try await ref.child("mid").setPriority(nil)
            let after = try await ref.queryOrderedByPriority().getData()
            #expect(after.children.compactMap { ($0 as? DataSnapshot)?.key } == ["mid", "low", "high"])
        }
    }

    @Test func rangeQueriesSelectWhatFirebaseSelects() async throws {
        let rules = #"{"rules":{".read":true,".write":true,"dinos":{".indexOn":["height"]},"scores":{".indexOn":".value"}}}"#
        try await withServer(rules: rules) { server in
            let ref = makeDatabase(server).reference().child("dinos")
            try await ref.setValue([
                "bruhathkayosaurus": ["height": 25], "lambeosaurus": ["height": 2.1], "linhenykus": ["height": 0.6],
                "pterodactyl": ["height": 0.6], "stegosaurus": ["height": 4], "triceratops": ["height": 3],
            ])
            func keys(_ query: DatabaseQuery) async throws -> [String] {
                let snapshot = try await query.getData()
                return snapshot.children.compactMap { ($0 as? DataSnapshot)?.key }
            }
            let byHeight = ref.queryOrdered(byChild: "height")
            #expect(try await keys(byHeight.queryStarting(atValue: 3)) == ["triceratops", "stegosaurus", "bruhathkayosaurus"])
            #expect(try await keys(byHeight.queryStarting(afterValue: 3)) == ["stegosaurus", "bruhathkayosaurus"])
            #expect(try await keys(byHeight.queryEnding(atValue: 0.6)) == ["linhenykus", "pterodactyl"])
            #expect(try await keys(byHeight.queryEnding(beforeValue: 2.1)) == ["linhenykus", "pterodactyl"])
            #expect(try await keys(byHeight.queryEqual(toValue: 0.6)) == ["linhenykus", "pterodactyl"])
            #expect(try await keys(byHeight.queryEqual(toValue: 0.6, childKey: "pterodactyl")) == ["pterodactyl"])
            #expect(
                try await keys(byHeight.queryStarting(atValue: 0.6, childKey: "pterodactyl").queryLimited(toFirst: 2))
                    == ["pterodactyl", "lambeosaurus"])
            #expect(
                try await keys(byHeight.queryStarting(afterValue: 0.6, childKey: "linhenykus").queryLimited(toFirst: 1))
                    == ["pterodactyl"])
            #expect(
                try await keys(byHeight.queryEnding(atValue: 0.6, childKey: "linhenykus")) == ["linhenykus"])
            #expect(
                try await keys(byHeight.queryEnding(beforeValue: 3, childKey: "triceratops").queryLimited(toLast: 1))
                    == ["lambeosaurus"])
            #expect(
                try await keys(ref.queryOrderedByKey().queryStarting(atValue: "p").queryEnding(atValue: "t")) == [
                    "pterodactyl", "stegosaurus",
                ])
            #expect(try await keys(ref.queryOrderedByKey().queryLimited(toLast: 2)) == ["stegosaurus", "triceratops"])
            let values = makeDatabase(server).reference().child("scores")
            try await values.setValue(["a": 3, "b": 1, "c": 2])
            #expect(try await keys(values.queryOrderedByValue().queryLimited(toFirst: 2)) == ["b", "c"])
        }
    }

    @Test func liveQueryObservesTheSameWindow() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("live")
            try await ref.setValue(["a": 1, "b": 2, "c": 3, "d": 4])
            let query = ref.queryOrderedByValue().queryStarting(atValue: 2).queryEnding(atValue: 3)
            let snapshot = await query.observeSingleEvent(of: .value)
            #expect(json(snapshot.value) == #"{"b":2,"c":3}"#)
            #expect(query.ref.key == "live")
            let (added, previous) = await ref.queryOrderedByKey().observeSingleEventAndPreviousSiblingKey(of: .childAdded)
            #expect(added.key == "a" && previous == nil)
        }
    }

    @Test func mutableDataEditsThroughChildren() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("tx")
            try await ref.setValue(["count": 1, "tags": ["x": true]])
            let shapes = Recorder<String>()
            let (committed, snapshot) = try await ref.runTransactionBlock { data in
                let count = data.childData(byAppendingPath: "count")
                shapes.record(
                    "\(data.hasChildren()) \(data.hasChild(atPath: "tags/x")) \(data.childrenCount) \(count.key ?? "-")")
                count.value = (count.value as? Int ?? 0) + 1
                data.childData(byAppendingPath: "tags/y").value = true
                data.priority = "p"
                return .success(withValue: data)
            }
            // The first run sees nothing cached; the rerun sees the server's value.
            #expect(shapes.all.last == "true true 2 count")
            #expect(committed)
            #expect(json(snapshot.value) == #"{"count":2,"tags":{"x":true,"y":true}}"#)
            let stored = try await makeDatabase(server, name: "reader").reference().child("tx").getData()
            #expect(stored.priority as? String == "p")
            #expect(json(stored.value) == #"{"count":2,"tags":{"x":true,"y":true}}"#)
        }
    }

    @Test func transactionWithoutLocalEventsShowsOnlyTheServersResult() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("quiet")
            let values = Recorder<String>()
            ref.observe(.value) { values.record(json($0.value)) }
            let initial = try await values.next()
            #expect(initial == "null")
            let done = Recorder<String>()
            ref.runTransactionBlock(
                { data in
                    data.value = "hello!"
                    return .success(withValue: data)
                },
                andCompletionBlock: { error, committed, snapshot in
                    done.record("\(error == nil) \(committed) \(json(snapshot?.value))")
                }, withLocalEvents: false)
            let committedValue = try await values.next()
            #expect(committedValue == #""hello!""#)
            let completion = try await done.next()
            #expect(completion == #"true true "hello!""#)
        }
    }

    @Test func transactionGivesUpAfterTwentyFiveTries() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("contended")
            try await ref.setValue(0)
            let runs = Recorder<Int>()
            let restURL = URL(string: "http://127.0.0.1:\(server.port)/contended.json?ns=\(server.namespace)")!
            do {
                _ = try await ref.runTransactionBlock { data in
                    runs.record(1)
                    // Another writer changes the value under every attempt, so every attempt is stale.
                    Self.put(restURL, body: "\"\(UUID().uuidString)\"")
                    data.value = "mine"
                    return .success(withValue: data)
                }
                Issue.record("the transaction should have given up")
            } catch {
                #expect((error as NSError).localizedDescription == "maxretry")
            }
            #expect(runs.all.count == 25)
        }
    }

    /// A blocking REST PUT: the transaction block runs synchronously, as in Firebase's SDK.
    private static func put(_ url: URL, body: String) {
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        request.httpBody = Data(body.utf8)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, _, _ in done.signal() }.resume()
        done.wait()
    }

    @Test func onDisconnectVariantsRunOnServer() async throws {
        try await withServer { server in
            let leaving = makeDatabase(server, name: "leaving")
            let ref = leaving.reference().child("od")
            try await ref.child("set").onDisconnectSetValue("gone", andPriority: 5)
            try await ref.child("update").onDisconnectUpdateChildValues(["a": 1, "b/c": 2])
            let empty = Recorder<String>()
            ref.child("nothing").onDisconnectUpdateChildValues([:]) { error, _ in empty.record("\(error == nil)") }
            #expect(try await empty.next() == "true")
            leaving.goOffline()
            let reader = makeDatabase(server, name: "reader").reference().child("od")
            let stored = Recorder<String>()
            reader.observe(.value) { stored.record(json($0.value)) }
            try await stored.wait { $0.last == #"{"set":"gone","update":{"a":1,"b":{"c":2}}}"# }
        }
    }

    @Test func readsTheServerRefusesCancelTheObserver() async throws {
        let rules = #"{"rules":{"public":{".read":true,".write":true},"secret":{".read":false}}}"#
        try await withServer(rules: rules) { server in
            let ref = makeDatabase(server).reference()
            let outcome = Recorder<String>()
            ref.child("secret").observe(
                .value, with: { _ in outcome.record("value") },
                withCancel: { error in outcome.record("cancel \((error as NSError).code)") })
            let cancelled = try await outcome.next()
            #expect(cancelled == "cancel 1")
            do {
                _ = try await ref.child("secret").getData()
                Issue.record("the read should have been refused")
            } catch {
                #expect((error as NSError).domain == "com.firebase")
            }
            var iterator = ref.child("secret").snapshots.makeAsyncIterator()
            await #expect(throws: (any Error).self) { _ = try await iterator.next() }
        }
    }

    @Test func keepSyncedHoldsAListenWithoutObservers() async throws {
        try await withServer { server in
            let database = makeDatabase(server)
            let ref = database.reference().child("synced")
            for _ in 0..<3 { ref.keepSynced(true) }
            let writer = makeDatabase(server, name: "writer").reference().child("synced")
            try await writer.setValue("fresh")
            // Kept synced, the value arrives without an observer and getData answers from memory
            // even once the connection is gone.
            try await Task.sleep(for: .milliseconds(300))
            database.goOffline()
            let cached = try await ref.getData()
            #expect(cached.value as? String == "fresh")
            database.goOnline()
            ref.keepSynced(false)
        }
    }

    @Test func infoServerTimeOffsetIsReported() async throws {
        try await withServer { server in
            let database = makeDatabase(server)
            let offset = await database.reference(withPath: ".info/serverTimeOffset").observeSingleEvent(of: .value)
            let milliseconds = try #require(offset.value as? NSNumber)
            #expect(abs(milliseconds.doubleValue) < 60_000)
        }
    }
}
