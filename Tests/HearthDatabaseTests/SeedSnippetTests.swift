import Foundation
import HearthDatabase
import HearthTestSupport
import Testing

/// The seeds' database snippets, as written for the Firebase Apple SDK, against a live Hearth.
@Suite(.serialized) struct SeedSnippetTests {
    @Test func usernameSetThenObservedAsDictionary() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference()
            let uid = "alice"
            // The seed's code, in the synchronous context an app's view controller gives it.
            func saveUser(_ username: String) {
                ref.child("users").child(uid).setValue(["username": username])
            }
            func updateUsername(_ username: String) {
                ref.child("users/\(uid)/username").setValue(username)
            }
            saveUser("ada")
            let values = Recorder<Any?>()
            ref.child("users").child(uid).observe(.value, with: { snapshot in values.record(snapshot.value) })
            let value = try await values.next() as? NSDictionary
            #expect(value?["username"] as? String == "ada")

            updateUsername("lovelace")
            let updated = try await values.next() as? [String: Any]
            #expect(updated?["username"] as? String == "lovelace")

            let snapshot = try await ref.child("users/\(uid)/username").getData()
            #expect(snapshot.value as? String ?? "Unknown" == "lovelace")
        }
    }

    @Test func blogFanOutWithAutoIDAndUpdate() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference()
            let userID = "u1"
            guard let key = ref.child("posts").childByAutoId().key else { return }
            let post = ["uid": userID, "author": "ada", "title": "Hello", "body": "World"]
            let childUpdates = ["/posts/\(key)": post, "/user-posts/\(userID)/\(key)/": post]
            try await ref.updateChildValues(childUpdates)

            // A second client reads both copies from the server.
            let other = makeDatabase(server, name: "reader").reference()
            let copy = try await other.child("user-posts").child(userID).child(key).getData()
            #expect((copy.value as? [String: Any])?["title"] as? String == "Hello")
            let original = await other.child("posts/\(key)").observeSingleEvent(of: .value)
            #expect(json(original.value) == json(post))
        }
    }

    @Test func profileReadOnceWithObserveSingleEvent() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference()
            try await ref.child("users/u2").setValue(["username": "grace"])
            let names = Recorder<String>()
            ref.child("users").child("u2").observeSingleEvent(
                of: .value,
                with: { snapshot in
                    let value = snapshot.value as? NSDictionary
                    names.record(value?["username"] as? String ?? "")
                }
            ) { error in
                names.record("error: \(error.localizedDescription)")
            }
            #expect(try await names.next() == "grace")
            try await ref.child("users/u2/username").setValue("hopper")
            #expect(try await names.staysQuiet())
        }
    }

    @Test func starCountersWithServerIncrement() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference()
            let postID = "p1"
            let updates =
                [
                    "posts/\(postID)/stars/u1": true,
                    "posts/\(postID)/starCount": ServerValue.increment(1),
                    "user-posts/\(postID)/stars/u1": true,
                    "user-posts/\(postID)/starCount": ServerValue.increment(1),
                ] as [String: Any]
            try await ref.updateChildValues(updates)
            try await ref.updateChildValues(updates)
            let count = try await makeDatabase(server).reference().child("posts/\(postID)/starCount").getData()
            #expect(count.value as? Int == 2)
        }
    }

    @Test func removingObserversStopsEvents() async throws {
        try await withServer { server in
            let ref = makeDatabase(server).reference().child("feed")
            let first = Recorder<Any?>()
            let second = Recorder<Any?>()
            let handle = ref.observe(.value) { first.record($0.value) }
            ref.observe(.childAdded) { second.record($0.key) }
            try await ref.child("a").setValue(1)
            try await first.wait { $0.count >= 1 && json($0.last!) == #"{"a":1}"# }
            ref.removeObserver(withHandle: handle)
            try await ref.child("b").setValue(2)
            try await second.wait { $0.count == 2 }
            #expect(try await first.staysQuiet())
            ref.removeAllObservers()
            try await ref.child("c").setValue(3)
            #expect(try await second.staysQuiet())
        }
    }

    /// The seed's star/unstar transaction, run by ten clients at once: every star counts.
    @Test func tenClientsStarOnePost() async throws {
        try await withServer { server in
            let setup = makeDatabase(server).reference()
            try await setup.child("posts/p1").setValue(["title": "Hi", "starCount": 0])
            let clients = (0..<10).map { makeDatabase(server, name: "star\($0)").reference().child("posts/p1") }
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for (index, ref) in clients.enumerated() {
                    group.addTask {
                        let uid = "user\(index)"
                        let (committed, _) = try await ref.runTransactionBlock { (currentData: MutableData) -> TransactionResult in
                            if var post = currentData.value as? [String: AnyObject] {
                                var stars: [String: Bool]
                                stars = post["stars"] as? [String: Bool] ?? [:]
                                var starCount = post["starCount"] as? Int ?? 0
                                if stars[uid] != nil {
                                    starCount -= 1
                                    stars.removeValue(forKey: uid)
                                } else {
                                    starCount += 1
                                    stars[uid] = true
                                }
                                post["starCount"] = starCount as AnyObject?
                                post["stars"] = stars as AnyObject?
                                currentData.value = post
                                return TransactionResult.success(withValue: currentData)
                            }
                            return TransactionResult.success(withValue: currentData)
                        }
                        return committed
                    }
                }
                for try await committed in group { #expect(committed) }
            }
            let post = try await makeDatabase(server).reference().child("posts/p1").getData()
            let value = try #require(post.value as? [String: Any])
            #expect(value["starCount"] as? Int == 10)
            #expect((value["stars"] as? [String: Any])?.count == 10)
        }
    }
}
