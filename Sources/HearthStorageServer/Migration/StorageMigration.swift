import HearthPostgres
import Logging
import NIOCore
import _NIOFileSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Storage's part of `hearth migrate --to-postgres`: the data directory's buckets and objects,
/// bytes included, copied into PostgreSQL (the bytes into PostgreSQL too, or into a shared blob
/// directory). Each object's bytes, read back from where they landed, are checked against its
/// recorded size, MD5 and CRC32C before the object is recorded. An object already copied (same
/// generation and metageneration) has its bytes checked again but is not copied again, so a
/// migration cut short resumes where it stopped; no object PostgreSQL holds is ever replaced.
/// Resumable uploads in progress are not copied: their clients start them again.
package enum StorageMigration {
    /// How many objects one listing reads.
    static let page = 1000

    /// Whether PostgreSQL at `address` holds no object.
    package static func holdsNoObjects(_ address: PostgresAddress) async throws -> Bool {
        let target = try await PostgresStorageStore.open(address)
        do {
            let buckets = try await target.buckets()
            var empty = true
            for bucket in buckets where empty {
                empty = try await target.objects(bucket: bucket.name, prefix: "", after: nil, limit: 1).isEmpty
            }
            await target.close()
            return empty
        } catch {
            await target.close()
            throw error
        }
    }

    /// Copies the Storage of `dataDirectory` into PostgreSQL at `address`, the bytes into
    /// `blobDirectory` when one is named; the number of objects and bytes PostgreSQL holds for
    /// them afterwards. `progress` is told of each object copied.
    package static func copy(
        from dataDirectory: String, to address: PostgresAddress, blobDirectory: String?, logger: Logger,
        progress: @Sendable (Int64) -> Void = { _ in }
    ) async throws -> (objects: Int, bytes: Int64) {
        let sourceBlobs = BlobDirectory(root: dataDirectory + "/storage")
        guard FileManager.default.fileExists(atPath: sourceBlobs.root + "/storage.sqlite") else { return (0, 0) }
        let source = try await SQLiteStorageStore.open(directory: sourceBlobs.root, logger: logger)
        let target: PostgresStorageStore
        do {
            target = try await PostgresStorageStore.open(address)
        } catch {
            await source.close()
            throw error
        }
        do {
            let targetBlobs: any BlobStore
            if let blobDirectory {
                let directory = BlobDirectory(root: blobDirectory)
                try await directory.prepare()
                try await directory.bind(to: try await target.identity())
                targetBlobs = directory
            } else {
                targetBlobs = PostgresBlobStore(database: target.database)
            }
            var copied = (objects: 0, bytes: Int64(0))
            for bucket in try await source.buckets() {
                try await target.ensureBucket(bucket.name, now: bucket.created)
                var after: [UInt8]?
                while true {
                    let objects = try await source.objects(bucket: bucket.name, prefix: "", after: after, limit: page)
                    for object in objects {
                        try await copy(object, from: sourceBlobs, to: target, blobs: targetBlobs)
                        copied.objects += 1
                        copied.bytes += object.size
                        progress(object.size)
                    }
                    guard objects.count == page, let last = objects.last else { break }
                    after = Array(last.name.utf8)
                }
                try await checkCount(of: bucket.name, in: target, is: try await count(of: bucket.name, in: source))
            }
            await source.close()
            await target.close()
            return copied
        } catch {
            await source.close()
            await target.close()
            throw error
        }
    }

    /// Copies `object` and its bytes, unless the target holds this generation of it already
    /// (copied by this migration before it was cut short), whose bytes are then checked again.
    /// Another object of its name in the target was not written by this migration: it is left
    /// alone, and the migration stops.
    private static func copy(
        _ object: StoredObject, from source: BlobDirectory, to target: PostgresStorageStore, blobs: any BlobStore
    ) async throws {
        let item = "Storage object \(object.bucket)/\(object.name)"
        if let existing = try await target.object(bucket: object.bucket, name: object.name) {
            guard existing.generation == object.generation, existing.metageneration == object.metageneration,
                existing.md5 == object.md5
            else {
                throw MigrationError.changedElsewhere(item: item, reason: "another generation of it is there")
            }
            try await check(blob: existing.blob, of: object, in: blobs, item: item)
            return
        }
        let (blob, _) = try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(source.path(ofBlob: object.blob))) {
            try await blobs.write($0.readChunks(chunkLength: .kibibytes(256)), limit: .max)
        }
        do {
            try await check(blob: blob, of: object, in: blobs, item: item)
            var copy = object
            copy.blob = blob
            try await target.put(copy)
        } catch {
            await blobs.removeBlob(blob)
            throw error
        }
    }

    /// Reads blob `id` back from `blobs` and checks it against the size, MD5 and CRC32C that
    /// `object` records.
    private static func check(blob id: String, of object: StoredObject, in blobs: any BlobStore, item: String) async throws {
        var stored = ContentDigest()
        do {
            try await blobs.read(blob: id, in: 0..<object.size) { stored.update($0) }
        } catch {
            throw MigrationError.mismatch(item: item, difference: "its bytes cannot be read back: \(error)")
        }
        let (md5, crc32c) = stored.finish()
        guard stored.size == object.size, md5 == object.md5, crc32c == object.crc32c else {
            throw MigrationError.mismatch(
                item: item, difference: "its bytes (\(stored.size)) do not match its recorded size (\(object.size)) and checksums")
        }
    }

    /// How many objects `bucket` holds in `store`.
    private static func count(of bucket: String, in store: any StorageStore) async throws -> Int {
        var count = 0
        var after: [UInt8]?
        while true {
            let objects = try await store.objects(bucket: bucket, prefix: "", after: after, limit: page)
            count += objects.count
            guard objects.count == page, let last = objects.last else { return count }
            after = Array(last.name.utf8)
        }
    }

    private static func checkCount(of bucket: String, in target: PostgresStorageStore, is expected: Int) async throws {
        let found = try await count(of: bucket, in: target)
        guard found == expected else {
            throw MigrationError.changedElsewhere(
                item: "Storage bucket \(bucket)", reason: "it holds \(found) objects, the data directory \(expected)")
        }
    }
}
