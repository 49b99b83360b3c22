import NIOCore
import _NIOFileSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The bytes of objects, as files under `<data dir>/storage`:
/// - `blobs/<xx>/<id>`: one file per stored object generation, never changed once in place;
/// - `uploads/<upload id>`: the bytes a resumable upload received so far.
///
/// A new blob is written to an unnamed temporary file (a hidden one where the file system has
/// none), fsynced, and linked into place only when complete; the directory is then fsynced. A
/// crash before that leaves nothing behind. A blob in place but not yet named by the metadata
/// (a crash between the two) is removed by ``removeOrphans(keeping:)`` at the next start.
struct BlobDirectory: BlobStore {
    let root: String
    private var fileSystem: FileSystem { .shared }

    init(root: String) {
        self.root = root
    }

    var blobsDirectory: String { root + "/blobs" }
    var uploadsDirectory: String { root + "/uploads" }

    /// Creates the directories.
    func prepare() async throws {
        for directory in [blobsDirectory, uploadsDirectory] {
            try await fileSystem.createDirectory(at: FilePath(directory), withIntermediateDirectories: true)
        }
    }

    /// The file that names the cluster whose objects the directory holds.
    var identityFile: String { root + "/hearth-storage-identity" }

    /// Binds the directory to the Storage of cluster `identity`, or checks that it is bound to
    /// it: a node given the wrong directory (another cluster's, an old data directory) would
    /// take its files for orphans and remove them. A directory not bound yet must hold no blob.
    func bind(to identity: String) async throws {
        if try checkBinding(to: identity) { return }
        let shards = (try? FileManager.default.contentsOfDirectory(atPath: blobsDirectory)) ?? []
        guard shards.allSatisfy({ ((try? FileManager.default.contentsOfDirectory(atPath: "\(blobsDirectory)/\($0)")) ?? []).isEmpty })
        else {
            // Another node of the cluster may have bound it and stored a blob meanwhile.
            if try checkBinding(to: identity) { return }
            throw BlobDirectoryError.holdsUnboundBlobs(root)
        }
        try await fileSystem.withFileHandle(
            forWritingAt: FilePath(identityFile), options: .newFile(replaceExisting: true)
        ) { handle in
            _ = try await handle.write(contentsOf: ByteBuffer(string: identity + "\n"), toAbsoluteOffset: 0)
            try await handle.synchronize()
        }
        try await synchronizeDirectory(of: identityFile)
    }

    /// Whether the directory is bound to `identity`; `false` if it is bound to none, an error if
    /// to another or if its identity cannot be read.
    private func checkBinding(to identity: String) throws -> Bool {
        guard FileManager.default.fileExists(atPath: identityFile) else { return false }
        let bound = try String(contentsOfFile: identityFile, encoding: .utf8)
        guard bound.trimmingCharacters(in: .whitespacesAndNewlines) == identity else {
            throw BlobDirectoryError.boundToAnotherCluster(root)
        }
        return true
    }

    /// The file of blob `id`.
    func path(ofBlob id: String) -> String { "\(blobsDirectory)/\(id.prefix(2))/\(id)" }

    /// The file of resumable upload `id`.
    func path(ofUpload id: String) -> String { "\(uploadsDirectory)/\(id)" }

    func write<Body: AsyncSequence>(_ body: Body, limit: Int64) async throws -> (id: String, digest: ContentDigest)
    where Body.Element == ByteBuffer {
        let id = BlobID.make()
        let path = path(ofBlob: id)
        try await fileSystem.createDirectory(at: FilePath(path).removingLastComponent(), withIntermediateDirectories: true)
        var digest = ContentDigest()
        try await fileSystem.withFileHandle(forWritingAt: FilePath(path), options: .newFile(replaceExisting: false)) { handle in
            try await handle.withBufferedWriter(capacity: .mebibytes(1)) { writer in
                for try await buffer in body {
                    // The digest of a chunk is computed while the previous ones go to disk.
                    let sofar = digest
                    async let hashed = Self.digest(sofar, adding: buffer)
                    _ = try await writer.write(contentsOf: buffer)
                    digest = await hashed
                    if digest.size > limit { throw StorageError.objectTooLarge(limit: limit) }
                }
            }
            try await handle.synchronize()
        }
        try await synchronizeDirectory(of: path)
        return (id, digest)
    }

    private static func digest(_ digest: ContentDigest, adding buffer: ByteBuffer) -> ContentDigest {
        var digest = digest
        digest.update(buffer)
        return digest
    }

    /// Reads the blob's file in 256 KiB chunks.
    func read(blob id: String, in range: Range<Int64>, _ consume: (ByteBuffer) async throws -> Void) async throws {
        try await fileSystem.withFileHandle(forReadingAt: FilePath(path(ofBlob: id))) { handle in
            for try await chunk in handle.readChunks(in: range, chunkLength: .kibibytes(256)) {
                try await consume(chunk)
            }
        }
    }

    func adopt(upload uploadID: String) async throws -> String {
        let id = BlobID.make()
        let path = path(ofBlob: id)
        try await fileSystem.createDirectory(at: FilePath(path).removingLastComponent(), withIntermediateDirectories: true)
        try await fileSystem.moveItem(at: FilePath(self.path(ofUpload: uploadID)), to: FilePath(path))
        try await synchronizeDirectory(of: path)
        return id
    }

    func restore(blob id: String, toUpload uploadID: String) async throws {
        try await fileSystem.moveItem(at: FilePath(path(ofBlob: id)), to: FilePath(path(ofUpload: uploadID)))
        try await synchronizeDirectory(of: path(ofUpload: uploadID))
    }

    func append<Body: AsyncSequence>(
        _ body: Body, toUpload uploadID: String, at offset: Int64, limit: Int64, refusal: StorageError
    ) async throws -> Int64
    where Body.Element == ByteBuffer {
        let path = FilePath(path(ofUpload: uploadID))
        return try await fileSystem.withFileHandle(forWritingAt: path, options: .modifyFile(createIfNecessary: true)) { handle in
            var position = offset
            for try await buffer in body {
                position += Int64(buffer.readableBytes)
                if position > limit { throw refusal }
                _ = try await handle.write(contentsOf: buffer, toAbsoluteOffset: position - Int64(buffer.readableBytes))
            }
            try await handle.synchronize()
            return position
        }
    }

    /// Creates the upload's file if a crash lost it before anything was written.
    func truncate(upload uploadID: String, to size: Int64) async throws {
        try await fileSystem.withFileHandle(
            forWritingAt: FilePath(path(ofUpload: uploadID)), options: .modifyFile(createIfNecessary: size == 0)
        ) { handle in
            try await handle.resize(to: .bytes(size))
            try await handle.synchronize()
        }
    }

    func digest(ofUpload uploadID: String) async throws -> ContentDigest {
        var digest = ContentDigest()
        try await fileSystem.withFileHandle(forReadingAt: FilePath(path(ofUpload: uploadID))) { handle in
            for try await chunk in handle.readChunks(chunkLength: .mebibytes(1)) { digest.update(chunk) }
        }
        return digest
    }

    func removeBlob(_ id: String) async {
        _ = try? await fileSystem.removeItem(at: FilePath(path(ofBlob: id)))
    }

    func removeUpload(_ id: String) async {
        _ = try? await fileSystem.removeItem(at: FilePath(path(ofUpload: id)))
    }

    func removeEverything() async throws {
        for directory in [blobsDirectory, uploadsDirectory] {
            _ = try await fileSystem.removeItem(at: FilePath(directory), recursively: true)
        }
        try await prepare()
    }

    /// A blob file counts as made when it was last modified.
    func removeOrphans(keeping referenced: Set<String>, unnamedFor: Duration) async throws -> Int {
        var removed = 0
        let cutoff = Date().addingTimeInterval(-Double(unnamedFor.components.seconds))
        let shards = (try? FileManager.default.contentsOfDirectory(atPath: blobsDirectory)) ?? []
        for shard in shards {
            for id in (try? FileManager.default.contentsOfDirectory(atPath: "\(blobsDirectory)/\(shard)")) ?? []
            where !referenced.contains(id) {
                if unnamedFor > .zero {
                    let modified = try? FileManager.default.attributesOfItem(atPath: path(ofBlob: id))[.modificationDate] as? Date
                    guard let modified, modified < cutoff else { continue }
                }
                await removeBlob(id)
                removed += 1
            }
        }
        return removed
    }

    /// Makes the entry of a renamed or created file durable.
    private func synchronizeDirectory(of path: String) async throws {
        try await fileSystem.withDirectoryHandle(atPath: FilePath(path).removingLastComponent()) { directory in
            try await directory.synchronize()
        }
    }
}

extension BlobDirectory {
    func copy(blob source: String, to id: String) async throws {
        let path = path(ofBlob: id)
        try await FileSystem.shared.createDirectory(at: FilePath(path).removingLastComponent(), withIntermediateDirectories: true)
        try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(self.path(ofBlob: source))) { input in
            try await FileSystem.shared.withFileHandle(forWritingAt: FilePath(path), options: .newFile(replaceExisting: false)) {
                output in
                var offset: Int64 = 0
                for try await chunk in input.readChunks(chunkLength: .mebibytes(1)) {
                    _ = try await output.write(contentsOf: chunk, toAbsoluteOffset: offset)
                    offset += Int64(chunk.readableBytes)
                }
                try await output.synchronize()
            }
        }
        try await FileSystem.shared.withDirectoryHandle(atPath: FilePath(path).removingLastComponent()) { try await $0.synchronize() }
    }
}

/// Why a blob directory cannot serve a cluster.
enum BlobDirectoryError: Error, CustomStringConvertible {
    /// The directory holds another cluster's objects.
    case boundToAnotherCluster(String)
    /// The directory holds blobs no cluster claimed (an old data directory's).
    case holdsUnboundBlobs(String)

    var description: String {
        switch self {
        case .boundToAnotherCluster(let root):
            "\(root) holds the objects of another cluster's PostgreSQL database (its hearth-storage-identity differs)"
        case .holdsUnboundBlobs(let root):
            "\(root) holds objects of no cluster: give --blob-dir an empty directory, or the one this database already uses"
        }
    }
}
