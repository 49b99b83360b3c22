import Foundation
import HearthApp
import HearthDatabase
import HearthTestSupport
import HearthTesting
import Testing

/// A database client of `server` (or of `url`, a proxy in front of it), under its own app, as
/// an app would configure it.
func makeDatabase(_ server: TestHearth, name: String = "client", url: String? = nil) -> Database {
    let options = FirebaseOptions(googleAppID: "1:1234:ios:abcd", gcmSenderID: "1234")
    options.projectID = "demo-sdk"
    options.databaseURL = url ?? server.databaseURL
    let appName = "\(name)-\(UUID().uuidString)"
    FirebaseApp.configure(name: appName, options: options)
    return Database.database(app: FirebaseApp.app(name: appName)!)
}

/// The JSON text of a snapshot value, for compact comparisons.
func json(_ value: Any?) -> String {
    guard let value, !(value is NSNull) else { return "null" }
    guard JSONSerialization.isValidJSONObject(value) else {
        if let string = value as? String { return "\"\(string)\"" }
        return "\(value)"
    }
    let data = try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
}
