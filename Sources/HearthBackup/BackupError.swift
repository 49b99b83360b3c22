/// Why a backup or a restore stopped. Each description names the file or directory at fault and
/// what was left behind.
public enum BackupError: Error, Equatable, CustomStringConvertible {
    /// The data directory to back up does not exist or holds no Hearth data.
    case noData(directory: String)
    /// A backup is written only into a new or empty directory.
    case destinationNotEmpty(String)
    /// A backup is never written into the data directory it copies.
    case destinationInsideData(destination: String, data: String)
    /// A file of the backup just written does not read back as it was written: the backup has
    /// no manifest, and counts as incomplete.
    case verificationFailed(file: String, reason: String)
    /// A restore writes only into a new or empty data directory.
    case targetNotEmpty(String)
    /// The backup has no manifest: it was interrupted, or the directory is not a backup.
    case incomplete(String)
    /// The manifest exists but cannot be read.
    case unreadableManifest(String, reason: String)
    /// The backup was written by a newer Hearth, in a format this one does not know.
    case newerFormat(found: Int, supported: Int)
    /// A file the manifest lists is missing, or its size or checksum differs.
    case corrupt(file: String, reason: String)
    /// A file could not be read, written or synced.
    case io(String)
    /// A store could not be copied.
    case sqlite(String)

    public var description: String {
        switch self {
        case .noData(let directory):
            "\(directory) holds no Hearth data (no database, auth, storage or console store)"
        case .destinationNotEmpty(let directory):
            "\(directory) is not empty: a backup is written only into a new or empty directory"
        case .destinationInsideData(let destination, let data):
            "\(destination) is in the data directory \(data): a backup goes elsewhere, ideally on another disk"
        case .verificationFailed(let file, let reason):
            "the backup does not read back: \(file) \(reason); it has no manifest and counts as incomplete"
        case .targetNotEmpty(let directory):
            "\(directory) is not empty: a backup is restored only into a new or empty data directory; nothing was written"
        case .incomplete(let directory):
            "\(directory) has no manifest: the backup was interrupted before it completed, or this is not a Hearth backup; nothing was written"
        case .unreadableManifest(let path, let reason):
            "the manifest \(path) cannot be read (\(reason)); nothing was written"
        case .newerFormat(let found, let supported):
            "the backup is in format \(found), written by a newer Hearth; this one reads format \(supported) at most; nothing was written"
        case .corrupt(let file, let reason):
            "the backup is corrupt: \(file) \(reason); nothing was written"
        case .io(let message): message
        case .sqlite(let message): message
        }
    }
}
