import Foundation
import HearthTesting

/// Runs `body` with a fresh Hearth of the project `demo-sdk` with database `rules`, stopped (and
/// its data removed) afterwards.
public func withServer<T>(rules: String? = nil, _ body: (TestHearth) async throws -> T) async throws -> T {
    try await withTestHearth(projectID: "demo-sdk", databaseRules: rules, body)
}

/// Why a test stopped waiting.
public struct TimedOut: Error, CustomStringConvertible {
    public let what: String
    public init(what: String) { self.what = what }
    public var description: String { "timed out waiting for \(what)" }
}

/// Collects what callbacks receive, for tests to await in order.
public final class Recorder<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []
    private var consumed = 0

    public init() {}

    public func record(_ element: Element) {
        lock.withLock { items.append(element) }
    }

    /// Everything recorded so far.
    public var all: [Element] { lock.withLock { items } }

    /// The next element not yet taken, waiting up to `seconds` for it.
    public func next(within seconds: Double = 10, _ what: String = "an event") async throws -> Element {
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
    public func wait(within seconds: Double = 10, _ what: String = "events", until condition: ([Element]) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(all) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TimedOut(what: "\(what); received \(all)")
    }

    /// Lets everything already queued arrive, then says whether nothing new came.
    public func staysQuiet(for seconds: Double = 0.3) async throws -> Bool {
        let count = lock.withLock { items.count }
        try await Task.sleep(for: .seconds(seconds))
        return lock.withLock { items.count } == count
    }
}

/// One temporary directory for everything the SDK modules keep for the user (signed-in users,
/// disk caches) in this test process: `XDG_DATA_HOME` points at it once, for every suite.
public let sdkUserDataDirectory: String = {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sdk-tests-\(UUID().uuidString)").path
    setenv("XDG_DATA_HOME", directory, 1)
    return directory
}()
