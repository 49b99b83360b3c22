import Foundation
import HearthAuth
import HearthDatabase
import HearthStorage
import HearthTesting
import Testing

// The complete example of docs/sdk.md, "Testing with HearthTesting", as written there.

@Suite struct ProfileTests {
    static let rules = #"{"rules": {"users": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}}}}"#
    static let storageRules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /avatars/{uid} { allow read, write: if request.auth.uid == uid; }
          }
        }
        """

    @Test func aUserWritesTheirProfileAndNobodyElses() async throws {
        let hearth = try await TestHearth.start(
            databaseRules: Self.rules, storageRules: Self.storageRules,
            users: [.init(email: "ada@example.com", password: "secret-1", displayName: "Ada", uid: "ada")])
        let app = hearth.app()
        _ = try await Auth.auth(app: app).signIn(withEmail: "ada@example.com", password: "secret-1")

        let users = Database.database(app: app).reference().child("users")
        try await users.child("ada/name").setValue("Ada")
        await #expect(throws: (any Error).self) { try await users.child("bob/name").setValue("not Bob") }

        let avatars = Storage.storage(app: app).reference().child("avatars")
        _ = try await avatars.child("ada").putDataAsync(Data("png".utf8))
        await #expect(throws: (any Error).self) { _ = try await avatars.child("bob").putDataAsync(Data("png".utf8)) }

        try await hearth.restart()  // same port, same data and users
        let later = hearth.app()
        _ = try await Auth.auth(app: later).signIn(withEmail: "ada@example.com", password: "secret-1")
        let name = try await Database.database(app: later).reference().child("users/ada/name").getData()
        #expect(name.value as? String == "Ada")

        await hearth.stop()  // signs out and deletes its apps, removes the data
    }
}
