import HearthEdge

/// One object of a bucket: its metadata as Storage keeps it, and the file holding its bytes.
///
/// Both APIs show the same record: the Firebase v0 API as ``FirebaseObjectJSON``, the GCS JSON
/// API as ``CloudObjectJSON``. Timestamps are milliseconds since 1970, as the wire formats show
/// them with three fractional digits.
struct StoredObject: Codable, Sendable, Equatable {
    var bucket: String
    var name: String
    /// Set at creation from the clock in microseconds, so that a rewrite gets a new one.
    var generation: Int64
    /// `1` at creation, one more for every metadata change.
    var metageneration: Int64
    var size: Int64
    /// The MD5 digest of the bytes.
    var md5: [UInt8]
    /// The CRC32C (Castagnoli) checksum of the bytes.
    var crc32c: UInt32
    var contentType: String?
    var contentEncoding: String?
    var contentDisposition: String?
    var contentLanguage: String?
    var cacheControl: String?
    var customTime: String?
    /// Custom metadata, without download tokens.
    var metadata: [String: String]
    /// Tokens that authorize a download without rules (v0 `downloadTokens`).
    var downloadTokens: [String]
    var timeCreated: Int64
    var updated: Int64
    /// The file name of the bytes under the blob directory.
    var blob: String

    /// An opaque tag that changes with the generation and the metageneration.
    var etag: String { Base64URL.standard(Array("\(generation)/\(metageneration)".utf8)) }

    /// The last segment of the name, as a download's file name.
    var fileName: String { name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? name }
}

extension StoredObject {
    /// GCS's limit on an object's custom metadata: 8 KiB of keys and values (UTF-8).
    static let maximumCustomMetadataBytes = 8192

    /// The bytes of custom metadata as GCS counts them: download tokens included, since GCS
    /// keeps them as the custom metadata key `firebaseStorageDownloadTokens`.
    var customMetadataBytes: Int {
        let tokens =
            downloadTokens.isEmpty
            ? 0 : MetadataChange.downloadTokensKey.utf8.count + downloadTokens.joined(separator: ",").utf8.count
        return metadata.reduce(tokens) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    /// Refuses an object whose custom metadata is past GCS's limit.
    func checkCustomMetadataSize() throws(StorageError) {
        if customMetadataBytes > Self.maximumCustomMetadataBytes {
            throw .metadataTooLarge(limit: Self.maximumCustomMetadataBytes)
        }
    }
}
