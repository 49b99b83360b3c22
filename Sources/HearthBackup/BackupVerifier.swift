/// Reads every file of a backup back and compares it with its manifest.
public struct BackupVerifier: Sendable {
    /// The backup's directory.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// Checks every file `manifest` lists: present, of its size, of its checksum.
    public func verify(_ manifest: BackupManifest, progress: @escaping @Sendable (BackupProgress) -> Void = { _ in })
        async throws(BackupError)
    {
        for file in manifest.files {
            try await BackupIO.run { () throws(BackupError) in
                try Self.checkPath(of: file)
                try Self.check(file, against: try DurableFiles.digest(of: directory + "/" + file.path))
            }
            progress(.done(file.bytes))
        }
    }

    /// Refuses a listed path that leads out of the backup.
    static func checkPath(of file: BackupManifest.File) throws(BackupError) {
        guard !file.path.split(separator: "/").contains(".."), !file.path.hasPrefix("/") else {
            throw .corrupt(file: file.path, reason: "is a path outside the backup")
        }
    }

    /// Refuses `digest` (`nil`: the file is missing) unless it is the one `file` lists.
    static func check(_ file: BackupManifest.File, against digest: FileDigest?) throws(BackupError) {
        guard let digest else { throw .corrupt(file: file.path, reason: "is missing") }
        guard digest.bytes == file.bytes else {
            throw .corrupt(file: file.path, reason: "has \(digest.bytes) bytes where the manifest says \(file.bytes)")
        }
        guard digest.sha256 == file.sha256 else { throw .corrupt(file: file.path, reason: "does not match its checksum") }
    }
}
