import HearthCore
import HearthEdge

/// The two JSON forms of an object: the Firebase v0 API's (spec storage-api §2) and the GCS
/// JSON API's object resource (§9.5). Sizes and generations are strings; digests are base64.
enum ObjectJSON {
    /// The v0 representation: custom metadata without download tokens, which appear as
    /// `downloadTokens`; `contentEncoding` defaults to `identity`.
    static func firebase(_ object: StoredObject) -> [UInt8] {
        var writer = JSONWriter()
        var scope = writer.beginObject()
        func string(_ key: String, _ value: String?) {
            guard let value else { return }
            writer.writeKey(key, in: &scope)
            writer.writeString(value)
        }
        string("name", object.name)
        string("bucket", object.bucket)
        string("generation", String(object.generation))
        string("metageneration", String(object.metageneration))
        string("contentType", object.contentType)
        string("timeCreated", StorageTimestamp.format(milliseconds: object.timeCreated))
        string("updated", StorageTimestamp.format(milliseconds: object.updated))
        string("storageClass", "STANDARD")
        string("size", String(object.size))
        string("md5Hash", Base64URL.standard(object.md5))
        string("contentEncoding", object.contentEncoding ?? "identity")
        string("contentDisposition", object.contentDisposition)
        string("contentLanguage", object.contentLanguage)
        string("cacheControl", object.cacheControl)
        string("crc32c", CRC32C.base64(object.crc32c))
        string("etag", object.etag)
        if !object.metadata.isEmpty {
            writer.writeKey("metadata", in: &scope)
            writeStrings(object.metadata, into: &writer)
        }
        if !object.downloadTokens.isEmpty { string("downloadTokens", object.downloadTokens.joined(separator: ",")) }
        writer.endObject(scope)
        return writer.bytes
    }

    /// The GCS object resource; `baseURL` (`http://host:port`) makes `selfLink` and `mediaLink`.
    static func cloud(_ object: StoredObject, baseURL: String) -> [UInt8] {
        var writer = JSONWriter()
        write(cloud: object, baseURL: baseURL, into: &writer)
        return writer.bytes
    }

    static func write(cloud object: StoredObject, baseURL: String, into writer: inout JSONWriter) {
        var scope = writer.beginObject()
        func string(_ key: String, _ value: String?) {
            guard let value else { return }
            writer.writeKey(key, in: &scope)
            writer.writeString(value)
        }
        let encodedName = PercentEncoding.encode(object.name)
        let encodedBucket = PercentEncoding.encode(object.bucket)
        string("kind", "storage#object")
        string("id", "\(object.bucket)/\(object.name)/\(object.generation)")
        string("selfLink", "\(baseURL)/storage/v1/b/\(encodedBucket)/o/\(encodedName)")
        string(
            "mediaLink",
            "\(baseURL)/download/storage/v1/b/\(encodedBucket)/o/\(encodedName)?generation=\(object.generation)&alt=media")
        string("name", object.name)
        string("bucket", object.bucket)
        string("generation", String(object.generation))
        string("metageneration", String(object.metageneration))
        string("contentType", object.contentType)
        string("storageClass", "STANDARD")
        string("size", String(object.size))
        string("md5Hash", Base64URL.standard(object.md5))
        string("crc32c", CRC32C.base64(object.crc32c))
        string("etag", object.etag)
        string("timeCreated", StorageTimestamp.format(milliseconds: object.timeCreated))
        string("updated", StorageTimestamp.format(milliseconds: object.updated))
        string("timeStorageClassUpdated", StorageTimestamp.format(milliseconds: object.timeCreated))
        string("contentEncoding", object.contentEncoding)
        string("contentDisposition", object.contentDisposition)
        string("contentLanguage", object.contentLanguage)
        string("cacheControl", object.cacheControl)
        string("customTime", object.customTime)
        var metadata = object.metadata
        if !object.downloadTokens.isEmpty {
            metadata[MetadataChange.downloadTokensKey] = object.downloadTokens.joined(separator: ",")
        }
        if !metadata.isEmpty {
            writer.writeKey("metadata", in: &scope)
            writeStrings(metadata, into: &writer)
        }
        writer.endObject(scope)
    }

    /// A JSON object of strings, keys sorted.
    static func writeStrings(_ strings: [String: String], into writer: inout JSONWriter) {
        var scope = writer.beginObject()
        for key in strings.keys.sorted() {
            writer.writeKey(key, in: &scope)
            writer.writeString(strings[key]!)
        }
        writer.endObject(scope)
    }
}
