#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Restores a backup into a new or empty data directory. Everything is checked before anything
/// is written: the manifest (present, readable, not from a newer format), every file against it,
/// and the target. A server started on the restored directory replays the database's log the
/// backup holds, as after a crash.
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
    /// the bytes checked and copied.
    public func restore(progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }) async throws(BackupError) -> BackupManifest {
        let manifest = try BackupManifest.read(from: source)
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: dataDirectory), !entries.isEmpty {
            throw .targetNotEmpty(dataDirectory)
        }
        progress(.expecting(manifest.totalBytes * 2))
        try await BackupVerifier(directory: source).verify(manifest, progress: progress)
        do throws(BackupError) {
            for file in manifest.files {
                let copied = try await BackupIO.run { () throws(BackupError) -> FileDigest? in
                    try DurableFiles.createDirectory(parentDirectory(of: dataDirectory + "/" + file.path))
                    return try DurableFiles.copy(source + "/" + file.path, to: dataDirectory + "/" + file.path)
                }
                guard copied == FileDigest(bytes: file.bytes, sha256: file.sha256) else {
                    throw .corrupt(file: file.path, reason: "changed while it was restored")
                }
                progress(.done(file.bytes))
            }
            try await BackupIO.run { () throws(BackupError) in
                try DurableFiles.syncDirectories(holding: manifest.files.map(\.path), under: dataDirectory)
            }
        } catch {
            removeRestored()
            throw error
        }
        return manifest
    }

    /// Removes what a failed restore wrote, leaving the target as empty as it was found.
    private func removeRestored() {
        let fileManager = FileManager.default
        for entry in (try? fileManager.contentsOfDirectory(atPath: dataDirectory)) ?? [] {
            try? fileManager.removeItem(atPath: dataDirectory + "/" + entry)
        }
    }
}
