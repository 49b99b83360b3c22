import HearthCore

/// The writable metadata of an upload or a PATCH body (spec storage-api §2.1): each field absent
/// (unchanged), `null` (removed) or set. Read-only fields (`bucket`, `size`, `generation`, …) in
/// a body are ignored, as Firebase ignores them.
struct MetadataChange: Sendable, Equatable {
    /// One field of the change.
    enum Field: Sendable, Equatable {
        case unchanged
        case removed
        case set(String)
    }

    var name: String?
    var contentType = Field.unchanged
    var contentEncoding = Field.unchanged
    var contentDisposition = Field.unchanged
    var contentLanguage = Field.unchanged
    var cacheControl = Field.unchanged
    var customTime = Field.unchanged
    /// Custom metadata: `nil` leaves it, `.removeAll` clears it (`"metadata": null`), otherwise
    /// keys to set (a `nil` value removes the key).
    var metadata: CustomMetadataChange?
    /// Client-computed digests (GCS uploads): verified against the bytes when present.
    var md5Hash: String?
    var crc32c: String?

    /// Custom metadata part of a change.
    enum CustomMetadataChange: Sendable, Equatable {
        case removeAll
        case merge([(String, String?)])

        static func == (lhs: Self, rhs: Self) -> Bool {
            switch (lhs, rhs) {
            case (.removeAll, .removeAll): true
            case (.merge(let a), .merge(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
            default: false
            }
        }
    }

    /// The custom-metadata key whose comma-separated value sets download tokens.
    static let downloadTokensKey = "firebaseStorageDownloadTokens"

    /// Reads a JSON body; an empty body changes nothing.
    init(json bytes: [UInt8]) throws(StorageError) {
        guard bytes.contains(where: { !$0.isASCIIWhitespace }) else { return }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw .badRequest("Invalid JSON payload received. \(error.reasonText)")
        }
        guard case .object = json else { throw .badRequest("Invalid JSON payload received. Expected an object.") }
        if case .string(let name)? = json["name"] { self.name = name }
        contentType = Self.field(json["contentType"])
        contentEncoding = Self.field(json["contentEncoding"])
        contentDisposition = Self.field(json["contentDisposition"])
        contentLanguage = Self.field(json["contentLanguage"])
        cacheControl = Self.field(json["cacheControl"])
        customTime = Self.field(json["customTime"])
        if case .string(let md5)? = json["md5Hash"] { md5Hash = md5 }
        if case .string(let crc)? = json["crc32c"] { crc32c = crc }
        switch json["metadata"] {
        case nil: metadata = nil
        case .null?: metadata = .removeAll
        case .object(let members)?:
            metadata = .merge(members.map { ($0.key, $0.value == .null ? nil : Self.text($0.value)) })
        case let other?:
            throw .badRequest("Invalid value at 'metadata': expected an object, got \(JSONWriter.string(other)).")
        }
    }

    init() {}

    private static func field(_ value: JSONValue?) -> Field {
        switch value {
        case nil: .unchanged
        case .null?: .removed
        case let value?: .set(text(value))
        }
    }

    /// A value as stored: strings as they are, anything else as its JSON text.
    private static func text(_ value: JSONValue) -> String {
        if case .string(let string) = value { return string }
        return JSONWriter.string(value)
    }

    /// `object` with this change applied. Download tokens given in custom metadata replace its
    /// token list instead of appearing as metadata, as setting the key does in GCS: a
    /// comma-separated list sets the tokens, `null` or `""` removes them all (revoking every
    /// download URL).
    func applied(to object: StoredObject) -> StoredObject {
        var object = object
        func apply(_ field: Field, _ keyPath: WritableKeyPath<StoredObject, String?>) {
            switch field {
            case .unchanged: break
            case .removed: object[keyPath: keyPath] = nil
            case .set(let value): object[keyPath: keyPath] = value
            }
        }
        apply(contentType, \.contentType)
        apply(contentEncoding, \.contentEncoding)
        apply(contentDisposition, \.contentDisposition)
        apply(contentLanguage, \.contentLanguage)
        apply(cacheControl, \.cacheControl)
        apply(customTime, \.customTime)
        switch metadata {
        case nil: break
        case .removeAll?: object.metadata = [:]
        case .merge(let entries)?:
            for (key, value) in entries {
                if key == Self.downloadTokensKey {
                    object.downloadTokens = (value ?? "").split(separator: ",").map { String($0) }
                } else {
                    object.metadata[key] = value
                }
            }
        }
        return object
    }
}

extension UInt8 {
    fileprivate var isASCIIWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
