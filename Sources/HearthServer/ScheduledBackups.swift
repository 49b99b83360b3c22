import HearthBackup
import HearthEdge
import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Takes the backups of a ``BackupSchedule`` while the server runs: the first when the newest
/// complete backup in the directory is older than the interval (at once if there is none), then
/// one every interval. Each reports itself in the log and on `/metrics`
/// (`hearth_backup_last_began_seconds`, `hearth_backup_last_bytes`,
/// `hearth_backup_failures_total`); a failed one is deleted and tried again an interval later.
/// Backups that began in the future (a clock that was wrong) are not counted.
struct ScheduledBackups: Service {
    let schedule: BackupSchedule
    let dataDirectory: String
    /// The rules files in use, by their name in a backup.
    let rulesFiles: [String: String]
    let metrics: TrafficMetrics
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            let now = Date().timeIntervalSince1970
            var newest = schedule.completeBackups(beganBy: Int64(now * 1000)).last
            if let newest { report(newest.manifest) }
            var due = newest.map { Double($0.manifest.began) / 1000 + seconds(schedule.interval) } ?? now
            while !Task.isCancelled {
                let wait = due - Date().timeIntervalSince1970
                if wait > 0 { try await Task.sleep(for: .milliseconds(Int64(wait * 1000))) }
                let began = Date()
                if let taken = await backUp(beginningAt: began, previous: newest?.path) { newest = taken }
                due = began.timeIntervalSince1970 + seconds(schedule.interval)
            }
        }
    }

    /// Takes one backup and prunes the old ones; `nil` when it failed.
    private func backUp(beginningAt date: Date, previous: String?) async -> (path: String, manifest: BackupManifest)? {
        let destination = schedule.destination(beginningAt: date)
        do {
            try FileManager.default.createDirectory(atPath: schedule.directory, withIntermediateDirectories: true)
            let writer = BackupWriter(
                dataDirectory: dataDirectory, destination: destination, rulesFiles: rulesFiles, previous: previous, logger: logger)
            let manifest = try await writer.write()
            schedule.prune()
            report(manifest)
            logger.notice(
                "backup complete",
                metadata: ["path": "\(destination)", "files": "\(manifest.files.count)", "bytes": "\(manifest.totalBytes)"])
            return (destination, manifest)
        } catch {
            metrics.backupFailures.increment()
            logger.error("backup failed", metadata: ["path": "\(destination)", "error": "\(error)"])
            schedule.discard(destination)
            return nil
        }
    }

    private func report(_ manifest: BackupManifest) {
        metrics.backupBegan.set(Double(manifest.began) / 1000)
        metrics.backupBytes.set(Double(manifest.totalBytes))
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
