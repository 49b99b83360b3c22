#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Restores a backup into a new or empty data directory. The manifest (present, readable, not
/// from a newer format) and the target are checked first; the files are then copied into a
/// directory beside the target, each checked against the manifest as it is copied (one read of
/// the backup), and renamed into place once all are: a restore refused or interrupted at any
/// point leaves the target as it was found.
/// A server started on the restored directory replays the database's log the backup holds, as
/// after a crash.
public struct BackupRestorer: Sendable {
    /// The backup's directory.
    public let source: String
    /// The data directory to restore into.
    public let dataDirectory: String

    public init(source: String, dataDirectory: String) {
        self.source = source
        self.dataDirectory = dataDirectory
    }

    /// Restores the backup and returns its manifest. `progress` is told the bytes expected, then
    /// the bytes checked and copied. `preparing` runs on the copy before it is renamed into place
    /// (a restore to a point in time writes its log there); when it fails, nothing is restored.
    public func restore(
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in },
        preparing: (@Sendable (String) async throws -> Void)? = nil
    ) async throws(BackupError) -> BackupManifest {
        let manifest = try BackupManifest.read(from: source)
        try checkTarget()
        progress(.expecting(manifest.totalBytes))
        let target = dataDirectory.hasSuffix("/") ? String(dataDirectory.dropLast()) : dataDirectory
        let staging = target + ".restoring-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        do throws(BackupError) {
            for file in manifest.files {
                try await BackupIO.run { () throws(BackupError) in
                    try BackupVerifier.checkPath(of: file)
                    try DurableFiles.createDirectory(parentDirectory(of: staging + "/" + file.path))
                    let copied = try DurableFiles.copy(source + "/" + file.path, to: staging + "/" + file.path)
                    try BackupVerifier.check(file, against: copied)
                }
                progress(.done(file.bytes))
            }
            if let preparing {
                do {
                    try await preparing(staging)
                } catch {
                    throw .io("\(error)")
                }
            }
            try await BackupIO.run { () throws(BackupError) in
                try DurableFiles.createDirectory(staging)
                try DurableFiles.syncDirectories(holding: manifest.files.map(\.path), under: staging)
                // An empty target is replaced; one written to meanwhile stays as it is.
                if DurableFiles.isDirectory(target) != nil, !DurableFiles.removeEmptyDirectory(target) { throw .targetNotEmpty(target) }
                try DurableFiles.rename(staging, to: target)
                let parent = parentDirectory(of: target)
                try DurableFiles.syncDirectory(parent.isEmpty ? "." : parent)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
        return manifest
    }

    /// Refuses a target that exists and is not an empty directory.
    private func checkTarget() throws(BackupError) {
        guard let isDirectory = DurableFiles.isDirectory(dataDirectory) else { return }
        guard isDirectory, let entries = try? FileManager.default.contentsOfDirectory(atPath: dataDirectory), entries.isEmpty
        else { throw .targetNotEmpty(dataDirectory) }
    }
}
