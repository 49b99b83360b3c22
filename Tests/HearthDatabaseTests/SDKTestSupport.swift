import Foundation
import HearthApp
import HearthDatabase
import HearthTestSupport
import Testing

/// A database client of `server` (or of `url`, a proxy in front of it), under its own app, as
/// an app would configure it.
func makeDatabase(_ server: LiveServer, name: String = "client", url: String? = nil) -> Database {
    let options = FirebaseOptions(googleAppID: "1:1234:ios:abcd", gcmSenderID: "1234")
    options.projectID = "demo-sdk"
    options.databaseURL = url ?? server.databaseURL
    let appName = "\(name)-\(UUID().uuidString)"
    FirebaseApp.configure(name: appName, options: options)
    return Database.database(app: FirebaseApp.app(name: appName)!)
}

/// Runs `body` with a fresh live server, removed afterwards.
func withServer<T>(rules: String? = nil, _ body: (LiveServer) async throws -> T) async throws -> T {
    let server = try await LiveServer.started(rules: rules)
    do {
        let result = try await body(server)
        await server.remove()
        return result
    } catch {
        await server.remove()
        throw error
    }
}

/// Why a test stopped waiting.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Collects what callbacks receive, for tests to await in order.
final class Recorder<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []
    private var consumed = 0

    func record(_ element: Element) {
        lock.withLock { items.append(element) }
    }

    /// Everything recorded so far.
    var all: [Element] { lock.withLock { items } }

    /// The next element not yet taken, waiting up to `seconds` for it.
    func next(within seconds: Double = 10, _ what: String = "an event") async throws -> Element {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let element: Element? = lock.withLock {
                guard consumed < items.count else { return nil }
                consumed += 1
                return items[consumed - 1]
            }
            if let element { return element }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TimedOut(what: what)
    }

    /// Waits until `condition` holds for everything recorded.
    func wait(within seconds: Double = 10, _ what: String = "events", until condition: ([Element]) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(all) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TimedOut(what: "\(what); received \(all)")
    }

    /// Lets everything already queued arrive, then says whether nothing new came.
    func staysQuiet(for seconds: Double = 0.3) async throws -> Bool {
        let count = lock.withLock { items.count }
        try await Task.sleep(for: .seconds(seconds))
        return lock.withLock { items.count } == count
    }
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
