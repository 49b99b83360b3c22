import Foundation
import Testing

@testable import HearthApp

/// The app object: options from a `GoogleService-Info.plist`, named apps, and deletion.
@Suite struct FirebaseAppTests {
    private let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>API_KEY</key><string>AIzaTestKey</string>
            <key>GCM_SENDER_ID</key><string>123456789012</string>
            <key>PLIST_VERSION</key><string>1</string>
            <key>BUNDLE_ID</key><string>com.example.todo</string>
            <key>PROJECT_ID</key><string>demo-todo</string>
            <key>STORAGE_BUCKET</key><string>demo-todo.appspot.com</string>
            <key>IS_ADS_ENABLED</key><false/>
            <key>GOOGLE_APP_ID</key><string>1:123456789012:ios:abcdef</string>
            <key>DATABASE_URL</key><string>https://demo-todo-default-rtdb.firebaseio.com</string>
        </dict>
        </plist>
        """

    private func writePlist(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("GoogleService-Info-\(UUID().uuidString).plist").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func optionsAreReadFromAGoogleServiceInfoPlist() throws {
        let path = try writePlist(plist)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let options = try #require(FirebaseOptions(contentsOfFile: path))
        #expect(options.googleAppID == "1:123456789012:ios:abcdef")
        #expect(options.gcmSenderID == "123456789012")
        #expect(options.apiKey == "AIzaTestKey")
        #expect(options.bundleID == "com.example.todo")
        #expect(options.projectID == "demo-todo")
        #expect(options.storageBucket == "demo-todo.appspot.com")
        #expect(options.databaseURL == "https://demo-todo-default-rtdb.firebaseio.com")
    }

    @Test func aPlistWithoutTheAppIDOrThatIsNotAPlistGivesNoOptions() throws {
        let incomplete = try writePlist(plist.replacingOccurrences(of: "GOOGLE_APP_ID", with: "OTHER_KEY"))
        let garbage = try writePlist("not a plist")
        defer {
            try? FileManager.default.removeItem(atPath: incomplete)
            try? FileManager.default.removeItem(atPath: garbage)
        }
        #expect(FirebaseOptions(contentsOfFile: incomplete) == nil)
        #expect(FirebaseOptions(contentsOfFile: garbage) == nil)
        #expect(FirebaseOptions(contentsOfFile: "/nonexistent/GoogleService-Info.plist") == nil)
    }

    @Test func namedAppsKeepACopyOfTheirOptionsUntilDeleted() async throws {
        let name = "app-\(UUID().uuidString)"
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.databaseURL = "http://127.0.0.1:9000?ns=first"
        FirebaseApp.configure(name: name, options: options)
        options.databaseURL = "http://127.0.0.1:9000?ns=changed-afterwards"
        let app = try #require(FirebaseApp.app(name: name))
        #expect(app.name == name)
        #expect(app.options.databaseURL == "http://127.0.0.1:9000?ns=first")
        // What the app hands out is a copy too.
        app.options.apiKey = "ignored"
        #expect(app.options.apiKey == nil)
        #expect(FirebaseApp.allApps?[name] === app)
        #expect(await app.delete())
        #expect(FirebaseApp.app(name: name) == nil)
        #expect(await !app.delete())
        FirebaseApp.configure(name: name, options: options)
        #expect(FirebaseApp.app(name: name)?.options.databaseURL == "http://127.0.0.1:9000?ns=changed-afterwards")
        await FirebaseApp.app(name: name)?.delete()
    }

    @Test func theDefaultAppIsTheOneConfigureWithOptionsMakes() async throws {
        let options = FirebaseOptions(googleAppID: "1:2:ios:3", gcmSenderID: "2")
        options.projectID = "demo-default"
        FirebaseApp.configure(options: options)
        let app = try #require(FirebaseApp.app())
        #expect(app.name == FirebaseApp.defaultAppName)
        #expect(app.options.projectID == "demo-default")
        await app.delete()
        #expect(FirebaseApp.app() == nil)
    }
}
