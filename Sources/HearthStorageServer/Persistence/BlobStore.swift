import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the bytes of objects and of resumable uploads in progress are kept: files under a
/// directory (``BlobDirectory``: the data directory's, or one every node of a cluster shares),
/// or PostgreSQL (``PostgresBlobStore``). Each object generation's bytes are one blob, never
/// changed once written; the metadata (``StorageStore``) names it only once it is durable.
protocol BlobStore: Sendable {
    /// Writes `body` as a new blob, refusing it past `limit` bytes, and returns its id and
    /// digest once it is durable.
    func write<Body: AsyncSequence>(_ body: Body, limit: Int64) async throws -> (id: String, digest: ContentDigest)
    where Body.Element == ByteBuffer

    /// Hands the bytes of blob `id` in `range` to `consume`, chunk after chunk.
    func read(blob id: String, in range: Range<Int64>, _ consume: (ByteBuffer) async throws -> Void) async throws

    /// Copies blob `source` to a new blob `id`, durably.
    func copy(blob source: String, to id: String) async throws

    /// Makes the bytes of finished upload `uploadID` a new blob; returns its id.
    func adopt(upload uploadID: String) async throws -> String

    /// Puts blob `id`, made from upload `uploadID` by ``adopt(upload:)``, back as the upload's
    /// bytes: the object could not be recorded, and a retried finalize will need them.
    func restore(blob id: String, toUpload uploadID: String) async throws

    /// Writes `body` into upload `uploadID` from byte `offset`, throwing `refusal` rather than
    /// writing past `limit`; returns the offset after its last byte once durable. Bytes past
    /// the upload's acknowledged size are never cut here (``truncate(upload:to:)`` does it at
    /// finalization): a request still streaming after its client gave up on it may run beside
    /// the chunks that follow, writing the same bytes at the same offsets.
    func append<Body: AsyncSequence>(
        _ body: Body, toUpload uploadID: String, at offset: Int64, limit: Int64, refusal: StorageError
    ) async throws -> Int64
    where Body.Element == ByteBuffer

    /// Cuts upload `uploadID` to `size` bytes (the bytes acknowledged); an upload missing with
    /// bytes acknowledged is an error, never made up of zeros.
    func truncate(upload uploadID: String, to size: Int64) async throws

    /// The size and digest of the bytes upload `uploadID` received.
    func digest(ofUpload uploadID: String) async throws -> ContentDigest

    func removeBlob(_ id: String) async
    func removeUpload(_ id: String) async

    /// Removes every blob and upload.
    func removeEverything() async throws

    /// Removes the blobs no object names (left by a crash between writing a blob and recording
    /// it, or between replacing an object and removing its old bytes) that were made more than
    /// `unnamedFor` ago; returns how many.
    func removeOrphans(keeping referenced: Set<String>, unnamedFor: Duration) async throws -> Int
}

/// Identifiers of blobs and uploads.
enum BlobID {
    /// A fresh id: 32 lowercase hex digits.
    static func make() -> String { UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }
}
