import Foundation

/// The settings of a Firebase app, under the Firebase Apple SDK's names: what
/// `GoogleService-Info.plist` holds, or what an app sets by hand.
///
/// A class, as Firebase's is, so that code setting properties on a `let options` compiles the
/// same. ``FirebaseApp`` keeps its own copy: changing an options object after configuring an app
/// with it changes nothing.
public final class FirebaseOptions {
    /// The app's id at Google (`GOOGLE_APP_ID`), `1:<project number>:<platform>:<hash>`.
    public var googleAppID: String
    /// The Cloud Messaging sender id (`GCM_SENDER_ID`), the project number.
    public var gcmSenderID: String
    /// The API key clients send (`API_KEY`).
    public var apiKey: String?
    /// The bundle identifier (`BUNDLE_ID`).
    public var bundleID: String
    /// The OAuth client id (`CLIENT_ID`).
    public var clientID: String?
    /// The project id (`PROJECT_ID`).
    public var projectID: String?
    /// The Realtime Database URL (`DATABASE_URL`), e.g. `https://<project>-default-rtdb.firebaseio.com`.
    public var databaseURL: String?
    /// The Cloud Storage bucket (`STORAGE_BUCKET`).
    public var storageBucket: String?
    /// The App Group shared with extensions (no plist key).
    public var appGroupID: String?
    /// The URL scheme of dynamic links (no plist key).
    public var deepLinkURLScheme: String?

    /// Options with the two values every app has; the others are set afterwards.
    public init(googleAppID: String, gcmSenderID: String) {
        self.googleAppID = googleAppID
        self.gcmSenderID = gcmSenderID
        self.bundleID = Bundle.main.bundleIdentifier ?? ""
    }

    /// The options a `GoogleService-Info.plist` file holds; `nil` when the file cannot be read or
    /// lacks `GOOGLE_APP_ID` or `GCM_SENDER_ID`.
    public convenience init?(contentsOfFile plistPath: String) {
        guard let data = FileManager.default.contents(atPath: plistPath),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let appID = plist["GOOGLE_APP_ID"] as? String, let senderID = plist["GCM_SENDER_ID"] as? String
        else { return nil }
        self.init(googleAppID: appID, gcmSenderID: senderID)
        apiKey = plist["API_KEY"] as? String
        bundleID = plist["BUNDLE_ID"] as? String ?? bundleID
        clientID = plist["CLIENT_ID"] as? String
        projectID = plist["PROJECT_ID"] as? String
        databaseURL = plist["DATABASE_URL"] as? String
        storageBucket = plist["STORAGE_BUCKET"] as? String
    }

    /// The options of `GoogleService-Info.plist` in the main bundle, else in the working
    /// directory (where a command-line program on Linux keeps it); `nil` if neither has one.
    public static func defaultOptions() -> FirebaseOptions? {
        let name = "GoogleService-Info"
        let candidates = [
            Bundle.main.path(forResource: name, ofType: "plist"),
            FileManager.default.currentDirectoryPath + "/\(name).plist",
        ]
        for case let path? in candidates where FileManager.default.fileExists(atPath: path) {
            if let options = FirebaseOptions(contentsOfFile: path) { return options }
        }
        return nil
    }

    /// An independent copy.
    public func copy() -> FirebaseOptions {
        FirebaseOptions(values: values)
    }

    /// The options as a value, as an app keeps them.
    var values: Values {
        Values(
            googleAppID: googleAppID, gcmSenderID: gcmSenderID, apiKey: apiKey, bundleID: bundleID, clientID: clientID,
            projectID: projectID, databaseURL: databaseURL, storageBucket: storageBucket, appGroupID: appGroupID,
            deepLinkURLScheme: deepLinkURLScheme)
    }

    convenience init(values: Values) {
        self.init(googleAppID: values.googleAppID, gcmSenderID: values.gcmSenderID)
        apiKey = values.apiKey
        bundleID = values.bundleID
        clientID = values.clientID
        projectID = values.projectID
        databaseURL = values.databaseURL
        storageBucket = values.storageBucket
        appGroupID = values.appGroupID
        deepLinkURLScheme = values.deepLinkURLScheme
    }

    /// The same options as an immutable, sendable value.
    struct Values: Sendable, Equatable {
        var googleAppID: String
        var gcmSenderID: String
        var apiKey: String?
        var bundleID: String
        var clientID: String?
        var projectID: String?
        var databaseURL: String?
        var storageBucket: String?
        var appGroupID: String?
        var deepLinkURLScheme: String?
    }
}
