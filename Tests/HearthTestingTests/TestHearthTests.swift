import Foundation
import HearthApp
import HearthAuth
import HearthDatabase
import HearthStorage
import HearthTesting
import NIOCore
import NIOPosix
import Testing

/// What an app's tests rely on HearthTesting for: seeded users, the app pointed at the server,
/// the rules given to it, and its restart and stop.
@Suite(.timeLimit(.minutes(2))) struct TestHearthTests {
    private static let ada = TestHearth.User(email: "ada@example.com", password: "secret-1", displayName: "Ada", uid: "ada")
    private static let bob = TestHearth.User(email: "bob@example.com", password: "secret-2")

    @Test func seededUsersSignInWithTheSDK() async throws {
        try await withTestHearth(users: [Self.ada, Self.bob]) { hearth in
            #expect(hearth.users.map(\.uid) == ["ada", hearth.users[1].uid] && hearth.users[1].uid != nil)
            let auth = Auth.auth(app: hearth.app())
            let ada = try await auth.signIn(withEmail: "ada@example.com", password: "secret-1").user
            #expect(ada.uid == "ada" && ada.displayName == "Ada" && ada.email == "ada@example.com")
            let bob = try await auth.signIn(withEmail: "bob@example.com", password: "secret-2").user
            #expect(bob.uid == hearth.users[1].uid)
            await #expect(throws: (any Error).self) {
                _ = try await auth.signIn(withEmail: "ada@example.com", password: "wrong-password")
            }
        }
    }

    @Test func aDatabaseWriteThroughTheAppIsReadBack() async throws {
        try await withTestHearth { hearth in
            let app = hearth.app()
            #expect(app.options.databaseURL == hearth.databaseURL && app.options.storageBucket == hearth.storageBucket)
            try await Database.database(app: app).reference().child("notes/first").setValue(["text": "hello"])
            let reader = Database.database(app: hearth.app()).reference().child("notes/first/text")
            #expect(try await reader.getData().value as? String == "hello")
        }
    }

    @Test func databaseRulesDenyWhatTheyShould() async throws {
        let rules = #"{"rules": {"users": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}}}}"#
        try await withTestHearth(databaseRules: rules, users: [Self.ada]) { hearth in
            let app = hearth.app()
            let root = Database.database(app: app).reference()
            await #expect(throws: (any Error).self) { try await root.child("users/ada/name").setValue("Ada") }
            _ = try await Auth.auth(app: app).signIn(withEmail: Self.ada.email, password: Self.ada.password)
            try await root.child("users/ada/name").setValue("Ada")
            do {
                try await root.child("users/bob/name").setValue("not Bob")
                Issue.record("a write to another user's data was allowed")
            } catch {
                #expect((error as NSError).code == 1, "permission_denied")
            }
            await #expect(throws: (any Error).self) { try await root.child("elsewhere").setValue(true) }
        }
    }

    @Test func storageRulesAllowAndDenyUploads() async throws {
        let rules = """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                match /public/{file} { allow read, write: if true; }
                match /users/{uid}/{file} { allow read, write: if request.auth != null && request.auth.uid == uid; }
              }
            }
            """
        try await withTestHearth(storageRules: rules, users: [Self.ada]) { hearth in
            let app = hearth.app()
            let storage = Storage.storage(app: app)
            let bytes = Data("hello".utf8)
            _ = try await storage.reference(withPath: "public/hello.txt").putDataAsync(bytes)
            #expect(try await storage.reference(withPath: "public/hello.txt").data(maxSize: 1024) == bytes)

            let own = storage.reference(withPath: "users/ada/hello.txt")
            await #expect(throws: (any Error).self) { _ = try await own.putDataAsync(bytes) }
            _ = try await Auth.auth(app: app).signIn(withEmail: Self.ada.email, password: Self.ada.password)
            _ = try await own.putDataAsync(bytes)
            do {
                _ = try await storage.reference(withPath: "users/bob/hello.txt").putDataAsync(bytes)
                Issue.record("an upload to another user's folder was allowed")
            } catch {
                #expect(StorageErrorCode(error) == .unauthorized)
            }
        }
    }

    @Test func dataAndUsersSurviveARestart() async throws {
        try await withTestHearth(users: [Self.ada]) { hearth in
            try await Database.database(app: hearth.app()).reference().child("kept").setValue(42)
            try await hearth.restart()
            let app = hearth.app()
            #expect(try await Database.database(app: app).reference().child("kept").getData().value as? Int == 42)
            let user = try await Auth.auth(app: app).signIn(withEmail: Self.ada.email, password: Self.ada.password).user
            #expect(user.uid == "ada")
        }
    }

    @Test func afterStopThePortRefusesConnectionsAndTheDataIsGone() async throws {
        let hearth = try await TestHearth.start()
        #expect(await accepts(port: hearth.port))
        #expect(FileManager.default.fileExists(atPath: hearth.dataDirectory))
        await hearth.stop()
        #expect(await !accepts(port: hearth.port))
        #expect(!FileManager.default.fileExists(atPath: hearth.dataDirectory))
        await #expect(throws: TestHearthError.self) { try await hearth.restart() }
    }

    @Test func invalidRulesAndUsersAreReported() async throws {
        do {
            _ = try await TestHearth.start(storageRules: "service firebase.storage { match")
            Issue.record("invalid storage rules started")
        } catch {
            guard case .serverDidNotStart = error else { throw error }
        }
        do {
            _ = try await TestHearth.start(users: [.init(email: "ada@example.com", password: "123")])
            Issue.record("a weak password was accepted")
        } catch {
            guard case .userNotCreated(let email, let reason) = error else { throw error }
            #expect(email == "ada@example.com" && reason.hasPrefix("WEAK_PASSWORD"))
        }
    }
}

/// Whether a TCP connection to `port` of ``TestHearth/host`` is accepted.
private func accepts(port: Int) async -> Bool {
    do {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: TestHearth.host, port: port).get()
        try? await channel.close()
        return true
    } catch {
        return false
    }
}
