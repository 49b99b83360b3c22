#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a complete backup holds: written last, once every file in it is synced, so that a backup
/// without one is known to be incomplete.
public struct BackupManifest: Codable, Sendable, Equatable {
    /// The format this Hearth writes, and the newest it restores.
    public static let currentFormat = 1
    /// The manifest's name in a backup directory.
    public static let fileName = "manifest.json"
    /// A file every backup directory holds from its start, so that what is not a backup is never
    /// taken (or pruned) for one.
    public static let markerName = ".hearth-backup"

    /// One file of the backup: its path relative to the backup's directory (and to the data
    /// directory it restores into), its size and its SHA-256 in hexadecimal.
    public struct File: Codable, Sendable, Equatable {
        public var path: String
        public var bytes: Int64
        public var sha256: String
    }

    public var format: Int
    /// When the backup began, in milliseconds since 1970: every write acknowledged before then is in it.
    public var began: Int64
    /// When the backup was complete, in milliseconds since 1970.
    public var completed: Int64
    /// The files, in the order they were written.
    public var files: [File]
    /// The log archive the data directory archived its database's log into when the backup began
    /// (`hearth serve --log-archive`), if any: the one a restore to a point in time replays.
    public var logArchiveID: String?

    /// The bytes of every file together.
    public var totalBytes: Int64 { files.reduce(0) { $0 + $1.bytes } }

    /// Reads the manifest of the backup in `directory`, refusing a missing, unreadable or newer one.
    public static func read(from directory: String) throws(BackupError) -> BackupManifest {
        let path = directory + "/" + fileName
        guard let data = FileManager.default.contents(atPath: path) else { throw .incomplete(directory) }
        /// The field every format has, read first so that a newer format is named as such.
        struct Format: Decodable { var format: Int }
        do {
            let format = try JSONDecoder().decode(Format.self, from: data).format
            guard format <= currentFormat else { throw BackupError.newerFormat(found: format, supported: currentFormat) }
            guard format >= 1 else { throw BackupError.unreadableManifest(path, reason: "format \(format) does not exist") }
            let manifest = try JSONDecoder().decode(BackupManifest.self, from: data)
            var total: Int64 = 0
            for file in manifest.files {
                let (sum, overflow) = total.addingReportingOverflow(file.bytes)
                guard file.bytes >= 0, !overflow else {
                    throw BackupError.unreadableManifest(path, reason: "the size of \(file.path) is impossible")
                }
                total = sum
            }
            return manifest
        } catch let error as BackupError {
            throw error
        } catch {
            throw .unreadableManifest(path, reason: "\(error)")
        }
    }

    /// The manifest as the JSON text of its file.
    func encoded() throws(BackupError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            return Array(try encoder.encode(self))
        } catch {
            throw .io("cannot encode the manifest: \(error)")
        }
    }
}
