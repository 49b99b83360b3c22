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
/// every acknowledged write its namespaces' files may not hold yet. Each store is then copied in
/// one read transaction (``SQLiteSnapshot``); a namespace's file only ever gains whole writes, and
/// what it lacks is in the log copied before it, so a restored server replays the log on top and
/// holds every write acknowledged before the backup began, each multi-path update wholly or not
/// at all. Stored objects' bytes are copied after Storage's metadata, from the files it names
/// (never changed once written); an object deleted meanwhile is left out of the copy's metadata,
/// as if its deletion had come before the backup. Resumable uploads under way are not kept.
public struct BackupWriter: Sendable {
    /// The data directory to back up.
    public let dataDirectory: String
    /// The new or empty directory the backup is written into.
    public let destination: String
    /// Rules files in use outside the data directory, by the name they take in the backup's
    /// `rules/` directory.
    public let rulesFiles: [String: String]
    /// An earlier backup whose stored objects' bytes are linked rather than copied again.
    public let previous: String?
    private let logger: Logger

    public init(dataDirectory: String, destination: String, rulesFiles: [String: String] = [:], previous: String? = nil, logger: Logger) {
        self.dataDirectory = dataDirectory
        self.destination = destination
        self.rulesFiles = rulesFiles
        self.previous = previous
        self.logger = logger
    }

    /// Writes the backup, then reads every file of it back against the manifest. `progress` is
    /// told the bytes expected once, then the bytes done as they are.
    public func write(progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }) async throws(BackupError) -> BackupManifest {
        let began = Self.now()
        let stores = DataDirectoryLayout.stores(in: dataDirectory)
        let segments = DataDirectoryLayout.logSegments(in: dataDirectory)
        guard !stores.isEmpty else { throw .noData(directory: dataDirectory) }
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
        for store in stores {
            try await BackupIO.run { () throws(BackupError) in
                try DurableFiles.createDirectory(parentDirectory(of: destination + "/" + store))
            }
            try await SQLiteSnapshot.copy(dataDirectory + "/" + store, to: destination + "/" + store, logger: logger)
            if store == DataDirectoryLayout.storageStore { files += try await copyObjects(progress: progress) }
            files.append(try await recordFile(store))
            progress(.done(DataDirectoryLayout.bytes(of: [store], in: dataDirectory)))
        }
        for (name, source) in rulesFiles.sorted(by: { $0.key < $1.key }) {
            let path = BackupRulesFiles.directory + "/" + name
            guard let file = try await copyFile(path, from: source) else { throw .io("the rules file \(source) does not exist") }
            files.append(file)
        }
        let manifest = BackupManifest(format: BackupManifest.currentFormat, began: began, completed: Self.now(), files: files)
        let paths = files.map(\.path)
        try await BackupIO.run { () throws(BackupError) in
            try DurableFiles.syncDirectories(holding: paths, under: destination)
            let temporary = destination + "/" + BackupManifest.fileName + ".partial"
            try DurableFiles.write(try manifest.encoded(), to: temporary)
            try DurableFiles.rename(temporary, to: destination + "/" + BackupManifest.fileName)
            try DurableFiles.syncDirectory(destination)
        }
        try await BackupVerifier(directory: destination).verify(manifest)
        return manifest
    }

    /// Copies the bytes of every object the copied Storage metadata names, and removes from that
    /// copy the objects whose bytes were deleted meanwhile, and the uploads under way.
    private func copyObjects(progress: @escaping @Sendable (BackupProgress) -> Void) async throws(BackupError) -> [BackupManifest.File] {
        let copy = destination + "/" + DataDirectoryLayout.storageStore
        var blobs: [String] = []
        try await SQLiteSnapshot.edit(copy, logger: logger) { connection in
            blobs = try await connection.query("SELECT DISTINCT blob FROM objects").compactMap { $0.column("blob")?.string }
        }
        progress(.expecting(blobs.reduce(0) { $0 + (DurableFiles.size(of: dataDirectory + "/" + DataDirectoryLayout.blob($1)) ?? 0) }))
        let reusable = previousFiles()
        var files: [BackupManifest.File] = []
        var deleted: [String] = []
        for blob in blobs {
            let path = DataDirectoryLayout.blob(blob)
            let linked = try await link(path, from: reusable)
            if let file = try await linked == nil ? copyFile(path) : linked {
                files.append(file)
                progress(.done(file.bytes))
            } else {
                deleted.append(blob)
            }
        }
        try await SQLiteSnapshot.edit(copy, logger: logger) { connection in
            for blob in deleted { _ = try await connection.query("DELETE FROM objects WHERE blob = ?", [.text(blob)]) }
            _ = try await connection.query("DELETE FROM uploads")
        }
        return files
    }

    /// Links `path` from the previous backup when that backup lists it in `reusable` (a stored
    /// object's bytes never change under one name).
    private func link(_ path: String, from reusable: [String: BackupManifest.File]) async throws(BackupError) -> BackupManifest.File? {
        guard let previous, let listed = reusable[path] else { return nil }
        return try await BackupIO.run { () throws(BackupError) -> BackupManifest.File? in
            try DurableFiles.createDirectory(parentDirectory(of: destination + "/" + path))
            return DurableFiles.link(previous + "/" + path, to: destination + "/" + path) ? listed : nil
        }
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

    /// The manifest's entry for `path`, a file already written into the backup.
    private func recordFile(_ path: String) async throws(BackupError) -> BackupManifest.File {
        try await BackupIO.run { () throws(BackupError) -> BackupManifest.File in
            guard let digest = try DurableFiles.digest(of: destination + "/" + path) else { throw .io("the copy of \(path) is missing") }
            return BackupManifest.File(path: path, bytes: digest.bytes, sha256: digest.sha256)
        }
    }

    /// Creates the destination, refusing one that holds anything.
    private func prepareDestination() throws(BackupError) {
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: destination), !entries.isEmpty {
            throw .destinationNotEmpty(destination)
        }
        try DurableFiles.createDirectory(destination)
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
