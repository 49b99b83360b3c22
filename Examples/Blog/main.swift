// The seeds' blog (002, 003) as a command-line program, one action per run: users, posts fanned
// out to `user-posts`, stars toggled in a transaction or counted with `ServerValue.increment`,
// and a profile picture uploaded with HearthStorage and shown by its download URL. The signed-in
// user is kept between runs.
//
// Usage: blog --host 127.0.0.1 --port 9000 [--project demo-blog] COMMAND …
//   signup EMAIL PASSWORD USERNAME | signin EMAIL PASSWORD | post TITLE BODY | star POST |
//   increment-star POST | avatar FILE | show POST

import Foundation
import HearthApp
import HearthAuth
import HearthDatabase
import HearthStorage

/// The value of `--name` in `arguments`, which loses both; `fallback` when it is absent.
func option(_ name: String, _ fallback: String, in arguments: inout [String]) -> String {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    defer { arguments.removeSubrange(index...index + 1) }
    return arguments[index + 1]
}
var arguments = Array(CommandLine.arguments.dropFirst())
let host = option("--host", "127.0.0.1", in: &arguments)
let port = Int(option("--port", "9000", in: &arguments)) ?? 9000
let project = option("--project", "demo-blog", in: &arguments)

let options = FirebaseOptions(googleAppID: "1:1234:ios:blog", gcmSenderID: "1234")
options.projectID = project
options.apiKey = "blog-key"
options.databaseURL = "http://\(host):\(port)?ns=\(project)-default-rtdb"
options.storageBucket = "\(project).appspot.com"
FirebaseApp.configure(options: options)
Auth.auth().useEmulator(withHost: host, port: port)
Storage.storage().useEmulator(withHost: host, port: port)

do {
    try await Blog().run(arguments)
    exit(0)
} catch {
    print("error: \(error.localizedDescription)")
    exit(1)
}
