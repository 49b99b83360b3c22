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

/// Backups taken by a running server: one every ``interval`` into a directory of its own under
/// ``directory``, keeping the newest ``keep`` complete ones.
public struct BackupSchedule: Sendable, Equatable {
    /// Where the backups are written, one directory each, named by the time they began.
    public var directory: String
    /// How long after the newest complete backup the next one begins.
    public var interval: Duration
    /// How many complete backups are kept; older ones are deleted once a new one is complete.
    public var keep: Int

    public init(directory: String, interval: Duration, keep: Int) {
        self.directory = directory
        self.interval = interval
        self.keep = keep
    }

    /// The complete backups in ``directory``, oldest first, with their manifests.
    public func completeBackups() -> [(path: String, manifest: BackupManifest)] {
        backupNames().compactMap { name in
            let path = directory + "/" + name
            return (try? BackupManifest.read(from: path)).map { (path, $0) }
        }.sorted { $0.manifest.began < $1.manifest.began }
    }

    /// The directory a backup beginning at `date` is written into: `hearth-<UTC time>`, so that
    /// names sort by time.
    public func destination(beginningAt date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970)
        return directory + "/" + Self.prefix + Self.timestamp(seconds)
    }

    /// Deletes the complete backups past the newest ``keep``, and the incomplete ones other than
    /// `current` (a backup interrupted by a crash or a restart).
    public func prune(keeping current: String? = nil) {
        let complete = completeBackups()
        let kept = Set(complete.suffix(keep).map(\.path))
        for name in backupNames() {
            let path = directory + "/" + name
            guard !kept.contains(path), path != current else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Parses a duration written as a number and a unit: `90s`, `30m`, `6h`, `1d`.
    public static func duration(_ text: String) -> Duration? {
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0 else { return nil }
        switch unit {
        case "s": return .seconds(count)
        case "m": return .seconds(count * 60)
        case "h": return .seconds(count * 3600)
        case "d": return .seconds(count * 86400)
        default: return nil
        }
    }

    private static let prefix = "hearth-"

    private func backupNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(Self.prefix) }.sorted()
    }

    /// `20261127T173300Z` for a time in seconds since 1970.
    private static func timestamp(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}
