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

    /// Why ``directory`` cannot hold the backups of `dataDirectory`, or `nil`: the two must not be
    /// the same, nor one inside the other.
    public func refusal(forDataDirectory dataDirectory: String) -> String? {
        DirectoryOverlap.refusal(of: directory, named: "the backup directory", dataDirectory: dataDirectory)
    }

    /// The complete backups in ``directory``, oldest first, with their manifests; those that
    /// began after `latest` (ms since 1970: a clock that was wrong) are left out.
    public func completeBackups(beganBy latest: Int64 = .max) -> [(path: String, manifest: BackupManifest)] {
        backups().compactMap { path in
            guard case .complete(let manifest) = state(of: path), manifest.began <= latest else { return nil }
            return (path, manifest)
        }.sorted { $0.manifest.began < $1.manifest.began }
    }

    /// The directory a backup beginning at `date` is written into: `hearth-<UTC time>`, so that
    /// names sort by time.
    public func destination(beginningAt date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970)
        return directory + "/" + Self.prefix + Self.timestamp(seconds)
    }

    /// Deletes the complete backups past the newest ``keep``, and the incomplete ones (a crash or
    /// a failure stopped them). Only directories this schedule names and that a backup began in
    /// (``BackupManifest/markerName``) are touched; one whose manifest cannot be read is kept.
    public func prune() {
        let kept = Set(completeBackups().suffix(keep).map(\.path))
        for path in backups() {
            switch state(of: path) {
            case .complete: if !kept.contains(path) { try? FileManager.default.removeItem(atPath: path) }
            case .incomplete: try? FileManager.default.removeItem(atPath: path)
            case .unreadable: continue
            }
        }
    }

    /// Deletes `path`, a backup of this schedule that failed, unless it has a manifest.
    public func discard(_ path: String) {
        guard backups().contains(path), case .incomplete = state(of: path) else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// What a backup directory holds.
    private enum BackupState {
        case complete(BackupManifest)
        /// No manifest: interrupted.
        case incomplete
        /// A manifest that cannot be read, or from a newer format: not to be judged.
        case unreadable
    }

    private func state(of path: String) -> BackupState {
        do {
            return .complete(try BackupManifest.read(from: path))
        } catch .incomplete {
            return .incomplete
        } catch {
            return .unreadable
        }
    }

    /// The directories of ``directory`` named as this schedule names backups and holding the
    /// marker a backup writes first.
    private func backups() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter(Self.isBackupName).sorted()
            .map { directory + "/" + $0 }
            .filter { FileManager.default.fileExists(atPath: $0 + "/" + BackupManifest.markerName) }
    }

    /// Whether `name` is `hearth-YYYYMMDDTHHMMSSZ`.
    private static func isBackupName(_ name: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let stamp = Array(name.dropFirst(prefix.count).utf8)
        guard stamp.count == 16, stamp[8] == UInt8(ascii: "T"), stamp[15] == UInt8(ascii: "Z") else { return false }
        return (stamp[0..<8] + stamp[9..<15]).allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Parses a duration written as a number and a unit: `90s`, `30m`, `6h`, `1d`.
    public static func duration(_ text: String) -> Duration? {
        guard let unit = text.last, let count = Int(text.dropLast()), (1...(100 * 365 * 86400)).contains(count) else { return nil }
        switch unit {
        case "s": return .seconds(count)
        case "m": return .seconds(count * 60)
        case "h": return .seconds(count * 3600)
        case "d": return .seconds(count * 86400)
        default: return nil
        }
    }

    private static let prefix = "hearth-"

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
