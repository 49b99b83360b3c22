import Foundation
import HearthApp
import HearthDatabase
import HearthTesting
import Testing

@testable import todo_app

/// The TodoApp example's screens, driven by its commands, against a test Hearth: the example
/// uses the default app (`Auth.auth()`, `Database.database()`), which the test configures.
@Suite struct TodoAppExampleTests {
    @Test func aSignedInUserAddsAndRemovesAnItem() async throws {
        try await withTestHearth(users: [.init(email: "ada@example.com", password: "secret-1", uid: "ada")]) { hearth in
            let app = hearth.app(name: FirebaseApp.defaultAppName)
            let todo = TodoApp()
            await todo.perform("signin", ["ada@example.com", "secret-1"])
            await todo.perform("add", ["buy", "milk"])
            let items = Database.database(app: app).reference().child("users/ada/items")
            let stored = try await items.getData().children.compactMap {
                ($0 as? DataSnapshot)?.childSnapshot(forPath: "title").value as? String
            }
            #expect(stored == ["buy milk"])

            await todo.perform("remove", ["buy milk"])
            #expect(try await items.getData().exists() == false)
            await todo.perform("signout", [])
        }
    }
}

extension TodoApp {
    /// Runs a command on a thread of its own: a command blocks its thread until the SDK answers.
    fileprivate func perform(_ command: String, _ words: [String]) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.run(command, words)
                continuation.resume()
            }
        }
    }
}
