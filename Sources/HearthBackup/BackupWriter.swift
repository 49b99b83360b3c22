import Logging
import NIOPosix
import SQLiteNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Takes an online backup of a data directory: while a server keeps writing into it, every
/// product's state is copied consistently into a new directory, with a manifest written last.
///
/// The order is what makes it consistent. The database's durable log is copied first: it holds
/// every acknowledged write its namespaces' files may not hold yet. Stored objects' files are
/// copied next, every one present (a file is in place before Storage's metadata names it, and
/// never changes under its name), so that an object acknowledged before the backup began is kept
/// even if it is overwritten or deleted while the backup runs. Each store is then copied in one
/// read transaction (``SQLiteSnapshot``): a namespace's file only ever gains whole writes, and
/// what it lacks is in the log copied before it, so a restored server replays the log on top and
/// holds every write acknowledged before the backup began, each multi-path update wholly or not
/// at all. The objects Storage's copy names and that came later are copied after it; one deleted
/// meanwhile is left out of the copy's metadata, as if its deletion had come before the backup.
/// Resumable uploads under way are not kept.
///
/// The manifest is written last, and put in place only once every file has been read back
/// against it: a backup without one is incomplete, whatever stopped it. Every file is readable by
/// its owner alone: a backup holds password hashes and signing keys.
public struct BackupWriter: Sendable {
    /// The data directory to back up.
    public let dataDirectory: String
    /// The new or empty directory the backup is written into.
    public let destination: String
    /// Rules files in use outside the data directory, by the name they take in the backup's
    /// `rules/` directory.
    public let rulesFiles: [String: String]
    /// An earlier backup whose stored objects' files are linked rather than copied again, when
    /// they still match its manifest.
    public let previous: String?
    private let logger: Logger

    public init(dataDirectory: String, destination: String, rulesFiles: [String: String] = [:], previous: String? = nil, logger: Logger) {
        self.dataDirectory = dataDirectory
        self.destination = destination
        self.rulesFiles = rulesFiles
        self.previous = previous
        self.logger = logger
    }

    /// Writes the backup, reads every file of it back against the manifest, then puts the
    /// manifest in place. `progress` is told the bytes expected, then the bytes done as they are.
    public func write(progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }) async throws(BackupError) -> BackupManifest {
        let began = Self.now()
        let archiveID = DataDirectoryLayout.archiveIdentity(of: dataDirectory)
        let stores = DataDirectoryLayout.stores(in: dataDirectory)
        let segments = DataDirectoryLayout.logSegments(in: dataDirectory)
        guard !stores.isEmpty else { throw .noData(directory: dataDirectory) }
        guard !DurableFiles.isSameOrInside(destination, dataDirectory) else {
            throw .destinationInsideData(destination: destination, data: dataDirectory)
        }
        try prepareDestination()
        progress(.expecting(DataDirectoryLayout.bytes(of: stores + segments, in: dataDirectory)))
        var files: [BackupManifest.File] = []
        // The log's segments first: each is copied as far as it is long now (a record cut short
        // at its end is dropped when a server reads it).
        for segment in segments {
            if let file = try await copyFile(segment, limit: DurableFiles.size(of: dataDirectory + "/" + segment)) {
                files.append(file)
                progress(.done(file.bytes))
            }
        }
        var objects = try await copyPresentObjects(progress: progress)
        for store in stores {
            try await BackupIO.run { () throws(BackupError) in
                try DurableFiles.createDirectory(parentDirectory(of: destination + "/" + store))
            }
            try await SQLiteSnapshot.copy(dataDirectory + "/" + store, to: destination + "/" + store, logger: logger)
            if store == DataDirectoryLayout.storageStore { files += try await keepNamedObjects(&objects, progress: progress) }
            files.append(try await recordFile(store))
            progress(.done(DataDirectoryLayout.bytes(of: [store], in: dataDirectory)))
        }
        for (name, source) in rulesFiles.sorted(by: { $0.key < $1.key }) {
            let path = BackupRulesFiles.directory + "/" + name
            guard let file = try await copyFile(path, from: source) else { throw .io("the rules file \(source) does not exist") }
            files.append(file)
        }
        // Kept so that a restored node serves at once, without ordering again (CAs limit orders).
        for path in DataDirectoryLayout.tlsFiles(in: dataDirectory) {
            if let file = try await copyFile(path) { files.append(file) }
        }
        let manifest = BackupManifest(
            format: BackupManifest.currentFormat, began: began, completed: Self.now(), files: files, logArchiveID: archiveID)
        try await install(manifest)
        return manifest
    }

    /// Syncs every directory written, reads every file back against `manifest`, then writes the
    /// manifest under a temporary name, syncs it and renames it into place.
    private func install(_ manifest: BackupManifest) async throws(BackupError) {
        let paths = manifest.files.map(\.path)
        try await BackupIO.run { () throws(BackupError) in try DurableFiles.syncDirectories(holding: paths, under: destination) }
        do {
            try await BackupVerifier(directory: destination).verify(manifest)
        } catch {
            if case .corrupt(let file, let reason) = error { throw .verificationFailed(file: file, reason: reason) }
            throw error
        }
        try await BackupIO.run { () throws(BackupError) in
            let temporary = destination + "/" + BackupManifest.fileName + ".partial"
            try DurableFiles.write(try manifest.encoded(), to: temporary)
            try DurableFiles.rename(temporary, to: destination + "/" + BackupManifest.fileName)
            try DurableFiles.syncDirectory(destination)
        }
    }

    /// Copies the file of every stored object present now, before Storage's metadata is copied:
    /// by blob id, the manifest's entry of each copy.
    private func copyPresentObjects(
        progress: @escaping @Sendable (BackupProgress) -> Void
    ) async throws(BackupError) -> [String: BackupManifest.File] {
        let blobs = DataDirectoryLayout.blobs(in: dataDirectory)
        progress(.expecting(blobs.reduce(0) { $0 + (DurableFiles.size(of: dataDirectory + "/" + DataDirectoryLayout.blob($1)) ?? 0) }))
        let reusable = previousFiles()
        var copied: [String: BackupManifest.File] = [:]
        for blob in blobs {
            guard let file = try await copyObject(blob, reusing: reusable) else { continue }
            copied[blob] = file
            progress(.done(file.bytes))
        }
        return copied
    }

    /// Keeps the objects the copied Storage metadata names: those copied before it, and those that
    /// came since (copied now). Removes the other copies, the objects whose files were deleted
    /// meanwhile from the metadata's copy, and the uploads under way.
    private func keepNamedObjects(
        _ copied: inout [String: BackupManifest.File], progress: @escaping @Sendable (BackupProgress) -> Void
    ) async throws(BackupError) -> [BackupManifest.File] {
        let copy = destination + "/" + DataDirectoryLayout.storageStore
        var named: [String] = []
        try await SQLiteSnapshot.edit(copy, logger: logger) { connection in
            named = try await connection.query("SELECT DISTINCT blob FROM objects").compactMap { $0.column("blob")?.string }
        }
        var kept: [BackupManifest.File] = []
        var deleted: [String] = []
        for blob in named {
            if let file = copied.removeValue(forKey: blob) {
                kept.append(file)
            } else if let file = try await copyObject(blob, reusing: [:]) {
                kept.append(file)
                progress(.done(file.bytes))
            } else {
                deleted.append(blob)
            }
        }
        let unnamed = copied.values.map { destination + "/" + $0.path }
        try await BackupIO.run { () throws(BackupError) in
            for path in unnamed { try DurableFiles.remove(path) }
        }
        try await SQLiteSnapshot.edit(copy, logger: logger) { connection in
            for blob in deleted { _ = try await connection.query("DELETE FROM objects WHERE blob = ?", [.text(blob)]) }
            _ = try await connection.query("DELETE FROM uploads")
        }
        return kept
    }

    /// Copies the file of object `blob`, or links the previous backup's when `reusable` lists it
    /// and it still matches; `nil` when the object's file is gone.
    private func copyObject(_ blob: String, reusing reusable: [String: BackupManifest.File]) async throws(BackupError) -> BackupManifest
        .File?
    {
        let path = DataDirectoryLayout.blob(blob)
        if let previous, let listed = reusable[path] {
            let linked = try await BackupIO.run { () throws(BackupError) -> Bool in
                try DurableFiles.createDirectory(parentDirectory(of: destination + "/" + path))
                guard try DurableFiles.digest(of: previous + "/" + path) == FileDigest(bytes: listed.bytes, sha256: listed.sha256) else {
                    return false
                }
                return DurableFiles.link(previous + "/" + path, to: destination + "/" + path)
            }
            if linked { return listed }
        }
        return try await copyFile(path)
    }

    /// The files the previous backup's manifest lists, by path.
    private func previousFiles() -> [String: BackupManifest.File] {
        guard let previous, let manifest = try? BackupManifest.read(from: previous) else { return [:] }
        return Dictionary(manifest.files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Copies `path` of the data directory (or `source`) into the backup; `nil` when it is gone.
    private func copyFile(_ path: String, from source: String? = nil, limit: Int64? = nil) async throws(BackupError) -> BackupManifest.File?
    {
        let source = source ?? dataDirectory + "/" + path
        return try await BackupIO.run { () throws(BackupError) -> BackupManifest.File? in
            try DurableFiles.createDirectory(parentDirectory(of: destination + "/" + path))
            return try DurableFiles.copy(source, to: destination + "/" + path, limit: limit).map {
                BackupManifest.File(path: path, bytes: $0.bytes, sha256: $0.sha256)
            }
        }
    }

    /// The manifest's entry for `path`, a store already copied into the backup, made readable by
    /// its owner alone.
    private func recordFile(_ path: String) async throws(BackupError) -> BackupManifest.File {
        try await BackupIO.run { () throws(BackupError) -> BackupManifest.File in
            try DurableFiles.restrict(destination + "/" + path)
            guard let digest = try DurableFiles.digest(of: destination + "/" + path) else { throw .io("the copy of \(path) is missing") }
            return BackupManifest.File(path: path, bytes: digest.bytes, sha256: digest.sha256)
        }
    }

    /// Creates the destination, owner-only, refusing one that holds anything.
    private func prepareDestination() throws(BackupError) {
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: destination), !entries.isEmpty {
            throw .destinationNotEmpty(destination)
        }
        try DurableFiles.createDirectory(destination)
        try DurableFiles.restrict(destination, directory: true)
        try DurableFiles.write([], to: destination + "/" + BackupManifest.markerName)
    }

    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// What a backup or a restore reports as it goes.
public enum BackupProgress: Sendable {
    /// More bytes are expected than said so far.
    case expecting(Int64)
    /// Bytes done.
    case done(Int64)
}
