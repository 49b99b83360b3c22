// The to-do app of the seeds (004) as a command-line program: sign up and sign in with the
// seed's error handling, password reset, and a per-user item list at `users/$uid/items`
// observed live. Only the imports differ from the seed's Firebase code.
//
// Usage: todo-app --host 127.0.0.1 --port 9000 [--project demo-todo], then commands on standard
// input, one per line: signup EMAIL PASSWORD, signin EMAIL PASSWORD, reset EMAIL, add TITLE,
// remove TITLE, list, signout, quit.

import Foundation
import HearthApp
import HearthAuth
import HearthDatabase

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: String) -> String {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}
let host = option("--host", "127.0.0.1")
let port = Int(option("--port", "9000")) ?? 9000
let project = option("--project", "demo-todo")

let options = FirebaseOptions(googleAppID: "1:1234:ios:todo", gcmSenderID: "1234")
options.projectID = project
options.apiKey = "todo-app-key"
options.databaseURL = "http://\(host):\(port)?ns=\(project)-default-rtdb"
FirebaseApp.configure(options: options)
Auth.auth().useEmulator(withHost: host, port: port)
// Commands wait for their callbacks on the main thread, so callbacks run on a queue of their own.
let callbacks = DispatchQueue(label: "todo-app.callbacks")
Auth.auth().callbackQueue = callbacks
Database.database().callbackQueue = callbacks

let app = TodoApp()
if let user = Auth.auth().currentUser {
    say("signed in as \(user.email ?? user.uid)")
    app.startObservingDatabase(for: user)
}
while let line = readLine() {
    let words = line.split(separator: " ", maxSplits: 2).map(String.init)
    guard let command = words.first else { continue }
    if command == "quit" { break }
    app.run(command, Array(words.dropFirst()))
}
