import HearthCore
import Synchronization

/// The locations a namespace's listeners follow, readable from any thread: pages at, above or
/// below them stay loaded, as each write there compares them before and after.
final class ListenedPaths: Sendable {
    private struct Counts {
        /// Listen groups at each location.
        var at: [DatabasePath: Int] = [:]
        /// Listen groups strictly below each location.
        var below: [DatabasePath: Int] = [:]
    }

    private let counts = Mutex(Counts())

    func insert(_ location: DatabasePath) {
        counts.withLock { counts in
            counts.at[location, default: 0] += 1
            for ancestor in Self.ancestors(of: location) { counts.below[ancestor, default: 0] += 1 }
        }
    }

    func remove(_ location: DatabasePath) {
        counts.withLock { counts in
            Self.decrement(&counts.at, location)
            for ancestor in Self.ancestors(of: location) { Self.decrement(&counts.below, ancestor) }
        }
    }

    /// Whether a listener follows `path`, a location above it or one below it.
    func isListened(_ path: DatabasePath) -> Bool {
        counts.withLock { counts in
            if counts.at[path] != nil || counts.below[path] != nil { return true }
            return Self.ancestors(of: path).contains { counts.at[$0] != nil }
        }
    }

    /// The locations strictly above `path`, nearest first.
    private static func ancestors(of path: DatabasePath) -> some Sequence<DatabasePath> {
        sequence(first: path) { $0.isRoot ? nil : $0.parent }.dropFirst()
    }

    private static func decrement(_ table: inout [DatabasePath: Int], _ path: DatabasePath) {
        if let count = table[path], count > 1 { table[path] = count - 1 } else { table[path] = nil }
    }
}
