import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks a file every `interval` and, when it changed (its time, size or identity), calls `reload`: how
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

    /// When the file at `path` (the file a symbolic link leads to, as when a mounted secret's
    /// link is swapped) was last changed, and which file it is; `nil` when it cannot be read.
    package static func version(of path: String) -> FileVersion? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileVersion(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), seconds: Int64(status.st_mtim.tv_sec),
            nanoseconds: Int64(status.st_mtim.tv_nsec), size: Int64(status.st_size))
    }

    /// What tells one version of a file from another.
    package struct FileVersion: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
        let seconds: Int64
        let nanoseconds: Int64
        let size: Int64
    }

    package func run() async throws {
        var lastSeen = Self.version(of: path)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: interval)
            let modified = Self.version(of: path)
            guard modified != lastSeen else { continue }
            lastSeen = modified
            await reload()
        }
    }
}
