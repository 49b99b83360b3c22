import HearthPostgres
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The metadata of Storage: buckets, objects (``StoredObject``, naming the blob that holds their
/// bytes) and resumable uploads (``ResumableUpload``).
///
/// Two stores keep it: ``SQLiteStorageStore`` in the data directory, used by one process, and
/// ``PostgresStorageStore`` in PostgreSQL, shared by every node of a cluster. Each method is one
/// atomic change; a caller that reads, modifies and writes holds ``exclusively(_:)`` around it.
protocol StorageStore: Sendable {
    /// Records `name` as a bucket created at `now` (ms) unless it exists; returns its creation time.
    @discardableResult
    func ensureBucket(_ name: String, now: Int64) async throws -> Int64
    /// When bucket `name` was created (ms), or `nil` if it does not exist.
    func bucketCreated(_ name: String) async throws -> Int64?
    /// Every bucket's name and creation time, by name.
    func buckets() async throws -> [(name: String, created: Int64)]

    func object(bucket: String, name: String) async throws -> StoredObject?
    /// Stores `object`, replacing any object of its name.
    func put(_ object: StoredObject) async throws
    func delete(bucket: String, name: String) async throws
    /// Up to `limit` objects of `bucket` whose names start with `prefix` and whose UTF-8 bytes
    /// sort after `after` (``StorageNames``; from the first when `nil`), in that order.
    func objects(bucket: String, prefix: String, after: [UInt8]?, limit: Int) async throws -> [StoredObject]
    /// The blobs every object refers to.
    func referencedBlobs() async throws -> Set<String>

    func upload(_ id: String) async throws -> ResumableUpload?
    func put(_ upload: ResumableUpload) async throws
    func deleteUpload(_ id: String) async throws
    /// How many active uploads `owner` holds that moved on at or after `cutoff` (ms), and the
    /// bytes they received.
    func openUploads(owner: String, activeSince cutoff: Int64) async throws -> (count: Int, bytes: Int64)
    /// The uploads no request moved on since `cutoff` (ms), records without a time included.
    func uploads(idleSince cutoff: Int64) async throws -> [String]

    /// Deletes every bucket, object and upload.
    func reset() async throws

    /// Runs `body` while no other process runs a section with the same `lock`: nothing for a
    /// store used by one process (its callers queue among themselves), a lock in PostgreSQL for
    /// a shared one.
    func exclusively<Result: Sendable>(_ lock: StorageLock, _ body: @Sendable () async throws -> Result) async throws
        -> Result

    /// Why the store cannot be used now, or `nil` when it can.
    func unavailability() async -> String?
    func close() async
}

/// What a section run ``StorageStore/exclusively(_:_:)`` keeps to itself.
enum StorageLock: Sendable {
    /// Every change of metadata.
    case metadata
    /// The finalization of one resumable upload, by id.
    case finalization(String)
}

/// Where Storage keeps its metadata and bytes.
package enum StorageLocation: Sendable {
    /// `<data dir>/storage`: `storage.sqlite` and the blob files.
    case dataDirectory(String)
    /// The metadata in PostgreSQL, and the bytes too, or with a `blobDirectory` in files in a
    /// directory every node shares.
    case postgres(PostgresAddress, blobDirectory: String?)
}

/// How object names order in both stores: by their UTF-8 bytes.
enum StorageNames {
    /// The bytes that sort after every name starting with `prefix` (and before every other name
    /// after them): the prefix's bytes then 0xFF, a byte UTF-8 never holds.
    static func beyondEveryName(startingWith prefix: String) -> [UInt8] {
        Array(prefix.utf8) + [0xFF]
    }
}

/// How both stores keep records: as JSON text.
enum StorageRecords {
    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ text: String?) throws -> Value {
        try JSONDecoder().decode(type, from: Data((text ?? "").utf8))
    }
}
