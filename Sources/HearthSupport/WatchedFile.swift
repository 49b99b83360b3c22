import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks a file's modification time every `interval` and, when it changed, calls `reload`: how
/// rules files are put in force as they are edited. `reload` decides what a bad edit means (the
/// rules files keep their previous rules and log why).
package struct WatchedFile: Service {
    package let path: String
    package let interval: Duration
    package let reload: @Sendable () async -> Void

    package init(path: String, interval: Duration = .seconds(1), reload: @escaping @Sendable () async -> Void) {
        self.path = path
        self.interval = interval
        self.reload = reload
    }

    /// When the file at `path` was last changed, or `nil` when it cannot be read.
    package static func modificationDate(of path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    package func run() async throws {
        var lastSeen = Self.modificationDate(of: path)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: interval)
            let modified = Self.modificationDate(of: path)
            guard modified != lastSeen else { continue }
            lastSeen = modified
            await reload()
        }
    }
}
