#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Restores a backup into a new or empty data directory. Everything is checked before anything
/// is written: the manifest (present, readable, not from a newer format), every file against it,
/// and the target. The files are copied into a directory beside the target, then renamed into
/// place: a restore interrupted at any point leaves no data directory a server would start on.
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
        progress(.expecting(manifest.totalBytes * 2))
        try await BackupVerifier(directory: source).verify(manifest, progress: progress)
        let target = dataDirectory.hasSuffix("/") ? String(dataDirectory.dropLast()) : dataDirectory
        let staging = target + ".restoring-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        do throws(BackupError) {
            for file in manifest.files {
                let copied = try await BackupIO.run { () throws(BackupError) -> FileDigest? in
                    try DurableFiles.createDirectory(parentDirectory(of: staging + "/" + file.path))
                    return try DurableFiles.copy(source + "/" + file.path, to: staging + "/" + file.path)
                }
                guard copied == FileDigest(bytes: file.bytes, sha256: file.sha256) else {
                    throw .corrupt(file: file.path, reason: "changed while it was restored")
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
