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
    }
}

/// `hearth restore SRC --data-dir DIR`: a backup into a new or empty data directory.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup into a new or empty data directory.",
        discussion: """
            Every file is checked against the backup's manifest before anything is written; an incomplete, corrupt \
            or newer backup, or a data directory that is not empty, is refused. The rules files the backup holds are \
            restored into the data directory's rules/ folder.
            """)

    @Argument(help: "The backup's directory.")
    var source: String

    @OptionGroup var data: DataDirectoryOption

    func run() async throws {
        let bar = ProgressBar("restoring", total: 0)
        let manifest = try await BackupRestorer(source: source, dataDirectory: data.dataDir).restore(progress: bar.report)
        bar.finish("done")
        let began = Date(timeIntervalSince1970: Double(manifest.began) / 1000)
        print(
            "Restored \(manifest.files.count) files (\(megabytes(manifest.totalBytes)) MB) into \(data.dataDir): the state of \(began.formatted(.iso8601))."
        )
        let rules = manifest.files.map(\.path).filter { $0.hasPrefix(BackupRulesFiles.directory + "/") }
        for path in rules { print("The rules file in use then is \(data.dataDir)/\(path).") }
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
