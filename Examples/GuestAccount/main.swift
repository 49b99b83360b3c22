// Seed 001 as a command-line program, one action per run: sign in anonymously, keep a cart
// under the anonymous uid, then turn the account into a permanent one by linking an email and
// password or a Google credential; the uid, and so the cart, stay. The user is kept between runs.
//
// Usage: guest-account --host 127.0.0.1 --port 9000 [--project demo-guest] COMMAND …
//   start | add ITEM | cart | link-email EMAIL PASSWORD | link-google ID_TOKEN

import Foundation
import HearthApp
import HearthAuth
import HearthDatabase

/// The value of `--name` in `arguments`, which loses both; `fallback` when it is absent.
func option(_ name: String, _ fallback: String, in arguments: inout [String]) -> String {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    defer { arguments.removeSubrange(index...index + 1) }
    return arguments[index + 1]
}
var arguments = Array(CommandLine.arguments.dropFirst())
let host = option("--host", "127.0.0.1", in: &arguments)
let port = Int(option("--port", "9000", in: &arguments)) ?? 9000
let project = option("--project", "demo-guest", in: &arguments)

let options = FirebaseOptions(googleAppID: "1:1234:ios:guest", gcmSenderID: "1234")
options.projectID = project
options.apiKey = "guest-key"
options.databaseURL = "http://\(host):\(port)?ns=\(project)-default-rtdb"
FirebaseApp.configure(options: options)
Auth.auth().useEmulator(withHost: host, port: port)

do {
    try await GuestAccount().run(arguments)
    exit(0)
} catch {
    print(error.localizedDescription)
    exit(1)
}
