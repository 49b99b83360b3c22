import ArgumentParser
import Foundation
import HearthBackup
import HearthDatabaseServer
import HearthStorageServer
import Logging

/// `hearth backup DEST`: an online, consistent backup of a data directory.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up everything in a data directory, while a server keeps serving it.",
        discussion: """
            Every database namespace, accounts and sessions, signing keys and secrets, Storage's metadata and \
            objects, the console's administrators and the rules files in use are copied into DEST (new or empty), \
            then read back against the backup's manifest, written last: a backup without a manifest is incomplete.
            """)

    @Argument(help: "The new or empty directory to write the backup into.")
    var destination: String

    @OptionGroup var data: DataDirectoryOption

    @Option(help: "The database rules file in use (default: the one firebase.json in this directory names).")
    var rules: String?

    @Option(help: "The storage rules file in use (default: the one firebase.json in this directory names).")
    var storageRules: String?

    @Option(help: "An earlier backup whose stored objects are linked rather than copied again.")
    var previous: String?

    func run() async throws {
        let directory = FileManager.default.currentDirectoryPath
        let rulesFiles = BackupRulesFiles.named(
            database: try rules ?? RulesFile.named(byProjectIn: directory)?.path,
            storage: try storageRules ?? StorageRulesFile.named(byProjectIn: directory)?.path)
        let writer = BackupWriter(
            dataDirectory: data.dataDir, destination: destination, rulesFiles: rulesFiles, previous: previous,
            logger: Logger(label: "hearth.backup"))
        let bar = ProgressBar("backing up", total: 0)
        let manifest = try await writer.write(progress: bar.report)
        bar.finish("verified")
        print("Backed up \(manifest.files.count) files (\(megabytes(manifest.totalBytes)) MB) to \(destination): verified.")
        if rulesFiles.isEmpty {
            print(
                "No rules file is in this backup: no firebase.json in \(directory) names one. Run it from the project's "
                    + "directory, or name them with --rules and --storage-rules.")
        }
    }
}

/// `hearth restore SRC --data-dir DIR [--until TIME --log-archive DIR]`: a backup into a new or
/// empty data directory, and the database on to a moment.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup into a new or empty data directory.",
        discussion: """
            Every file is checked against the backup's manifest as it is copied beside the data directory; the copy \
            takes its place only once all are. An incomplete, corrupt \
            or newer backup, or a data directory that is not empty, is refused. The rules files the backup holds are \
            restored into the data directory's rules/ folder. With --until and --log-archive, the database, accounts, \
            Storage and the console's administrators are taken on to that moment by what the log archive holds.
            """)

    @Argument(help: "The backup's directory.")
    var source: String

    @OptionGroup var data: DataDirectoryOption

    @Option(
        help:
            "Restore the database, accounts and Storage as they were at this moment: an ISO 8601 time (2026-11-27T17:40:00Z) or milliseconds since 1970."
    )
    var until: String?

    @Option(help: "The log archive a server kept (hearth serve --log-archive), replayed up to --until.")
    var logArchive: String?

    func validate() throws {
        guard (until == nil) == (logArchive == nil) else { throw ValidationError("--until and --log-archive go together") }
        if let until, Self.milliseconds(until) == nil {
            throw ValidationError("--until must be an ISO 8601 time (2026-11-27T17:40:00Z) or milliseconds since 1970")
        }
    }

    func run() async throws {
        let logger = Logger(label: "hearth.restore")
        var pointInTime: PointInTimeLog?
        var storeChanges: StoreChangeReplay?
        if let until, let logArchive, let moment = Self.milliseconds(until) {
            let manifest = try BackupManifest.read(from: source)
            guard moment >= manifest.completed else {
                throw ValidationError(
                    "the backup completed at \(Self.iso(manifest.completed)): --until must be at or after it "
                        + "(restore an older backup to reach an earlier moment); nothing was written")
            }
            pointInTime = try await PointInTimeLog.plan(
                backup: source, archive: logArchive, archiveID: manifest.logArchiveID, until: moment, logger: logger)
            storeChanges = try await StoreChangeReplay.plan(backup: source, archive: logArchive, until: moment, logger: logger)
        }
        let bar = ProgressBar("restoring", total: 0)
        var preparing: (@Sendable (String) async throws -> Void)?
        if let pointInTime, let storeChanges {
            preparing = { staging in
                try await pointInTime.apply(to: staging, logger: logger)
                try await storeChanges.apply(to: staging, logger: logger)
            }
        }
        let manifest = try await BackupRestorer(source: source, dataDirectory: data.dataDir).restore(
            progress: bar.report, preparing: preparing)
        bar.finish("done")
        print(
            "Restored \(manifest.files.count) files (\(megabytes(manifest.totalBytes)) MB) into \(data.dataDir): "
                + "the state of \(Self.iso(manifest.began)).")
        if let pointInTime {
            print(
                "The database goes on to \(Self.iso(pointInTime.until)): \(pointInTime.writes) writes of the log archive "
                    + "replay when the server starts\(pointInTime.lastWrite.map { ", the last of \(Self.iso($0))" } ?? "")"
                    + "\(pointInTime.archiveEnds.map { "; the archive holds writes up to \(Self.iso($0))" } ?? ""). "
                    + "Accounts, Storage and the console's administrators go on to \(storeChanges.map { "\($0.changes)" } ?? "0") "
                    + "archived changes\(storeChanges?.lastChange.map { ", the last of \(Self.iso($0))" } ?? ""). "
                    + "Start the server with a new --log-archive directory: the restored data begin a history of their own.")
        }
        for store in storeChanges?.absentStores ?? [] {
            print("\(store) did not exist when the backup was taken: its archived changes are not restored.")
        }
        let rules = manifest.files.map(\.path).filter { $0.hasPrefix(BackupRulesFiles.directory + "/") }
        for path in rules { print("The rules file in use then is \(data.dataDir)/\(path).") }
    }

    /// `text` as milliseconds since 1970: a number of them, or an ISO 8601 time.
    static func milliseconds(_ text: String) -> Int64? {
        if let number = Int64(text) { return number }
        for style in [Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle()] {
            if let date = try? style.parse(text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        }
        return nil
    }

    /// `milliseconds` since 1970 as an ISO 8601 time.
    static func iso(_ milliseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension ProgressBar {
    /// Shows a backup's or a restore's progress.
    func report(_ progress: BackupProgress) {
        switch progress {
        case .expecting(let bytes): expect(Int(bytes))
        case .done(let bytes): advance(by: Int(bytes))
        }
    }
}

private func megabytes(_ bytes: Int64) -> String {
    String(format: "%.1f", Double(bytes) / 1_000_000)
}
