import Foundation
import HearthApp
import HearthAuth
import HearthDatabase
import HearthTestSupport
import HearthTesting
import Testing

/// Every test's signed-in users are kept under the tests' data directory.
private var userDataDirectory: String { sdkUserDataDirectory }

/// An app of its own pointed at `server`, and its auth on the emulator endpoints.
func makeAuth(_ server: TestHearth, appName: String = "auth-\(UUID().uuidString)") -> Auth {
    _ = userDataDirectory
    let auth = Auth.auth(app: server.app(name: appName))
    auth.callbackQueue = DispatchQueue(label: "auth-test-callbacks")
    return auth
}

/// The code of an error an auth call threw.
func code(of body: () async throws -> Void) async -> AuthErrorCode.Code? {
    do {
        try await body()
        return nil
    } catch {
        return AuthErrorCode.Code(error)
    }
}

@Suite struct AuthTests {
    @Test func signUpSignInAndTheSeedsErrorCodes() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let email = "todo-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let created = try await auth.createUser(withEmail: email, password: "secret-123")
            #expect(created.additionalUserInfo?.isNewUser == true)
            #expect(created.user.email == email && !created.user.isAnonymous && created.user.providerID == "Firebase")
            #expect(auth.currentUser?.uid == created.user.uid)
            let token = try await created.user.getIDTokenResult()
            #expect(token.signInProvider == "password" && token.claims["user_id"] as? String == created.user.uid)

            #expect(await code { _ = try await auth.createUser(withEmail: email, password: "secret-123") } == .emailAlreadyInUse)
            #expect(await code { _ = try await auth.createUser(withEmail: "not-an-email", password: "secret-123") } == .invalidEmail)
            #expect(await code { _ = try await auth.createUser(withEmail: "x-\(email)", password: "123") } == .weakPassword)
            #expect(await code { _ = try await auth.signIn(withEmail: email, password: "wrong-password") } == .wrongPassword)
            #expect(await code { _ = try await auth.signIn(withEmail: "nobody-\(email)", password: "secret-123") } == .userNotFound)
            #expect(await code { try await auth.sendPasswordReset(withEmail: "nobody-\(email)") } == .userNotFound)
            try await auth.sendPasswordReset(withEmail: email)

            do {
                _ = try await auth.signIn(withEmail: email, password: "wrong-password")
                Issue.record("a wrong password signed in")
            } catch {
                // The seed's check, in today's and in older SDKs' spelling, and the message.
                #expect(AuthErrorCode(rawValue: error._code) == .wrongPassword)
                #expect(AuthErrorCode.Code(rawValue: (error as NSError).code) == .wrongPassword)
                #expect((error as NSError).domain == "FIRAuthErrorDomain")
                #expect(error.localizedDescription == "The password is invalid or the user does not have a password.")
                switch AuthErrorCode(rawValue: error._code) {
                case .wrongPassword?: break
                default: Issue.record("not .wrongPassword")
                }
            }
            let signedIn = try await auth.signIn(withEmail: email, password: "secret-123")
            #expect(signedIn.user.uid == created.user.uid && signedIn.additionalUserInfo?.isNewUser == false)
        }
    }

    @Test func completionHandlersAndListeners() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let states = Recorder<String?>()
            let handle = auth.addStateDidChangeListener { _, user in states.record(user?.uid) }
            #expect(try await states.next() == nil)
            let done = Recorder<String?>()
            auth.signInAnonymously { result, error in done.record(result?.user.uid ?? "error: \(String(describing: error))") }
            let uid = try #require(try await done.next())
            #expect(try await states.next() == uid)
            #expect(auth.currentUser?.isAnonymous == true)
            #expect(try await auth.signInAnonymously().user.uid == uid)
            try auth.signOut()
            #expect(try await states.next() == nil)
            auth.removeStateDidChangeListener(handle)
            _ = try await auth.signInAnonymously()
            try await Task.sleep(for: .milliseconds(200))
            #expect(states.all.count == 3)
        }
    }

    @Test func theUserOutlivesTheProcessAndIsForgottenOnSignOut() async throws {
        try await withServer { server in
            let name = "persisted-\(UUID().uuidString)"
            let first = makeAuth(server, appName: name)
            let uid = try await first.signInAnonymously().user.uid
            let app = try #require(FirebaseApp.app(name: name))
            await app.delete()
            #expect(first.currentUser == nil)
            let again = makeAuth(server, appName: name)
            #expect(again !== first)
            #expect(again.currentUser?.uid == uid)
            #expect(try await again.currentUser?.getIDToken().isEmpty == false)
            #expect(savedSessionIsPrivate(appName: name))
            try again.signOut()
            #expect(!savedSessionExists(appName: name))
        }
    }

    @Test func aKeptUserSignsTheFirstDatabaseRequestOfTheNextRun() async throws {
        let rules = #"{"rules": {"users": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}}}}"#
        try await withServer(rules: rules) { server in
            let name = "next-run-\(UUID().uuidString)"
            let first = makeAuth(server, appName: name)
            let uid = try await first.signInAnonymously().user.uid
            let firstApp = try #require(first.app)
            try await Database.database(app: firstApp).reference(withPath: "users/\(uid)/note").setValue("mine")
            let options = firstApp.options
            await firstApp.delete()
            try expireSavedSession(appName: name)

            // The next run, hours later, touches the database before Auth: as with Firebase, Auth
            // exists from the moment the app is configured, so the kept user signs the first
            // request, with a token refreshed where the user signed in (`useEmulator` is not
            // called in this run).
            FirebaseApp.configure(name: name, options: options)
            let app = try #require(FirebaseApp.app(name: name))
            let note = try await Database.database(app: app).reference(withPath: "users/\(uid)/note").getData()
            #expect(note.value as? String == "mine")
            let user = try #require(Auth.auth(app: app).currentUser)
            #expect(user.uid == uid)
            #expect(try await user.getIDTokenResult().expirationDate > Date())
        }
    }

    @Test func stateListenersHearOfAnotherUserNotOfTheSameOneAgain() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let email = "again-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let uid = try await auth.createUser(withEmail: email, password: "secret-123").user.uid
            let states = Recorder<String?>()
            let tokens = Recorder<String?>()
            let posted = Recorder<String?>()
            let observer = NotificationCenter.default.addObserver(
                forName: Auth.authStateDidChangeNotification, object: auth, queue: nil
            ) { notification in posted.record((notification.object as? Auth)?.currentUser?.uid) }
            defer { NotificationCenter.default.removeObserver(observer) }
            auth.addStateDidChangeListener { _, user in states.record(user?.uid) }
            auth.addIDTokenDidChangeListener { _, user in tokens.record(user?.uid) }
            #expect(try await states.next() == uid)
            #expect(try await tokens.next() == uid)
            _ = try await auth.signIn(withEmail: email, password: "secret-123")
            #expect(try await tokens.next() == uid)
            #expect(try await posted.next() == uid)
            let other = try await auth.signInAnonymously().user.uid
            #expect(try await states.next() == other)
            #expect(states.all == [uid, other])
        }
    }

    @Test func aForcedRefreshTellsTokenListeners() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let user = try await auth.signInAnonymously().user
            let tokens = Recorder<String?>()
            auth.addIDTokenDidChangeListener { _, user in tokens.record(user?.uid) }
            #expect(try await tokens.next() == user.uid)
            #expect(auth.currentUser == user && Set([user, auth.currentUser!]).count == 1)
            let refreshed = try await user.getIDTokenResult(forcingRefresh: true)
            #expect(refreshed.signInProvider == "anonymous")
            // Callers asking at once share one refresh.
            let shared = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<5 { group.addTask { try await user.getIDToken(forcingRefresh: true) } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(shared.count == 1)
            #expect(try await tokens.next() == user.uid)
        }
    }

    @Test func deletingTheUserSignsItOut() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let email = "gone-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let user = try await auth.createUser(withEmail: email, password: "secret-123").user
            try await user.reload()
            #expect(user.email == email && user.metadata.creationDate != nil)
            try await user.delete()
            #expect(auth.currentUser == nil)
            #expect(await code { _ = try await auth.signIn(withEmail: email, password: "secret-123") } == .userNotFound)
        }
    }

    @Test func theDatabaseSendsTheSignedInUsersToken() async throws {
        let rules = #"{"rules": {"users": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}}}}"#
        try await withServer(rules: rules) { server in
            let auth = makeAuth(server)
            let database = Database.database(app: auth.app!)
            database.callbackQueue = DispatchQueue(label: "database-test-callbacks")
            let uid = try await auth.signInAnonymously().user.uid
            let mine = database.reference(withPath: "users/\(uid)/note")
            try await mine.setValue("mine")
            await #expect(throws: (any Error).self) { try await database.reference(withPath: "users/someone-else/note").setValue("theirs") }
            try auth.signOut()
            await #expect(throws: (any Error).self) { try await mine.setValue("signed out") }
            let other = try await auth.signInAnonymously().user.uid
            try await database.reference(withPath: "users/\(other)/note").setValue("new user")
        }
    }
}

/// A screen of an app, as the seeds write them: not `Sendable`, captured by completion blocks.
private final class LoginScreen {
    var messages: [String] = []
    let shown = Recorder<String>()

    func show(_ message: String) {
        messages.append(message)
        shown.record(message)
    }
}

@Suite struct CompletionShapeTests {
    @Test func completionBlocksCaptureTheAppsOwnObjects() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let screen = LoginScreen()
            auth.signInAnonymously { result, error in
                screen.show(result.map { "signed in \($0.user.isAnonymous)" } ?? "error \(String(describing: error))")
            }
            #expect(try await screen.shown.next() == "signed in true")
            let user = try #require(auth.currentUser)
            user.getIDTokenResult { result, _ in screen.show(result?.signInProvider ?? "none") }
            #expect(try await screen.shown.next() == "anonymous")
            user.reload { error in screen.show(error == nil ? "reloaded" : "failed") }
            #expect(try await screen.shown.next() == "reloaded")
            user.delete { error in screen.show(error == nil ? "deleted" : "failed") }
            #expect(try await screen.shown.next() == "deleted")
            #expect(auth.currentUser == nil)
        }
    }
}
