import Foundation

/// An object's metadata (spec storage-api §2): what the server reports, and the writable
/// fields an app sets for an upload or ``StorageReference/updateMetadata(_:)``.
public final class StorageMetadata: @unchecked Sendable {
    public var contentType: String?
    public var cacheControl: String?
    public var contentDisposition: String?
    public var contentEncoding: String?
    public var contentLanguage: String?
    /// Custom metadata.
    public var customMetadata: [String: String]?
    public private(set) var bucket = ""
    /// The object's full path.
    public private(set) var path: String?
    /// The last segment of the path.
    public var name: String? { path.map { String($0.split(separator: "/").last ?? "") } }
    public private(set) var size: Int64 = 0
    public private(set) var generation: Int64 = 0
    public private(set) var metageneration: Int64 = 0
    public private(set) var md5Hash: String?
    public private(set) var timeCreated: Date?
    public private(set) var updated: Date?
    /// Download tokens, comma-separated in the server's answer.
    private(set) var downloadTokens: [String] = []
    /// The fields as they were when read, to send only changes in an update.
    private var initial: [String: Any] = [:]

    public init() {}

    /// Metadata from a dictionary of the server's fields (`contentType`, `metadata`, `name`,
    /// `size`, `timeCreated`, …), as ``dictionaryRepresentation()`` makes it.
    public convenience init(dictionary: [String: AnyHashable]) {
        self.init(json: dictionary)
    }

    /// Whether the metadata is a stored object's (as read from the server), not one being made.
    public var isFile: Bool { path != nil }

    /// Always `false`: listings give folders as references, not metadata (as in Firebase).
    public var isFolder: Bool { false }

    /// The metadata as the server's fields: what ``init(dictionary:)`` reads back.
    public func dictionaryRepresentation() -> [String: AnyHashable] {
        var fields: [String: AnyHashable?] = [
            "bucket": bucket, "cacheControl": cacheControl, "contentDisposition": contentDisposition,
            "contentEncoding": contentEncoding, "contentLanguage": contentLanguage, "contentType": contentType,
            "md5Hash": md5Hash, "name": path, "size": size != 0 ? size : nil,
            "generation": generation != 0 ? String(generation) : nil,
            "metageneration": metageneration != 0 ? String(metageneration) : nil,
            "timeCreated": timeCreated.map(Self.rfc3339), "updated": updated.map(Self.rfc3339),
        ]
        fields["metadata"] = customMetadata
        return fields.compactMapValues { $0 }
    }

    /// Metadata from the server's JSON.
    init(json: [String: Any]) {
        bucket = json["bucket"] as? String ?? ""
        path = json["name"] as? String
        contentType = json["contentType"] as? String
        cacheControl = json["cacheControl"] as? String
        contentDisposition = json["contentDisposition"] as? String
        contentEncoding = json["contentEncoding"] as? String
        contentLanguage = json["contentLanguage"] as? String
        customMetadata = json["metadata"] as? [String: String]
        size = Self.integer(json["size"])
        generation = Self.integer(json["generation"])
        metageneration = Self.integer(json["metageneration"])
        md5Hash = json["md5Hash"] as? String
        timeCreated = (json["timeCreated"] as? String).flatMap(Self.date)
        updated = (json["updated"] as? String).flatMap(Self.date)
        downloadTokens = (json["downloadTokens"] as? String)?.split(separator: ",").map(String.init) ?? []
        initial = writable
    }

    /// The writable fields set, as upload JSON.
    var writable: [String: Any] {
        var fields: [String: Any] = [:]
        let strings: [(String, String?)] = [
            ("contentType", contentType), ("cacheControl", cacheControl), ("contentDisposition", contentDisposition),
            ("contentEncoding", contentEncoding), ("contentLanguage", contentLanguage),
        ]
        for (key, value) in strings { if let value { fields[key] = value } }
        if let customMetadata { fields["metadata"] = customMetadata }
        return fields
    }

    /// The PATCH body of an update: changed fields, and `null` for removed ones (§2.1).
    var changes: [String: Any] {
        let now = writable
        var patch: [String: Any] = [:]
        for key in Set(now.keys).union(initial.keys) {
            switch (initial[key], now[key]) {
            case (nil, let value?): patch[key] = value
            case (_?, nil): patch[key] = NSNull()
            case (let old?, let value?):
                if !Self.same(old, value) {
                    if key == "metadata", let oldMap = old as? [String: String], let newMap = value as? [String: String] {
                        var merged: [String: Any] = newMap
                        for removed in Set(oldMap.keys).subtracting(newMap.keys) { merged[removed] = NSNull() }
                        patch[key] = merged
                    } else {
                        patch[key] = value
                    }
                }
            default: break
            }
        }
        return patch
    }

    /// Whether two writable values (strings, or maps of strings) are equal.
    private static func same(_ a: Any, _ b: Any) -> Bool {
        if let a = a as? String, let b = b as? String { return a == b }
        if let a = a as? [String: String], let b = b as? [String: String] { return a == b }
        return false
    }

    private static func integer(_ value: Any?) -> Int64 {
        if let string = value as? String { return Int64(string) ?? 0 }
        return (value as? NSNumber)?.int64Value ?? 0
    }

    /// `date` in RFC 3339 with milliseconds, as the server writes times.
    private static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// An RFC 3339 time with or without fractional seconds.
    private static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// A page of a listing: objects, and the "folders" (prefixes) below the listed one.
public final class StorageListResult: @unchecked Sendable {
    public let items: [StorageReference]
    public let prefixes: [StorageReference]
    /// The token of the next page; `nil` on the last.
    public let pageToken: String?

    init(items: [StorageReference], prefixes: [StorageReference], pageToken: String?) {
        self.items = items
        self.prefixes = prefixes
        self.pageToken = pageToken
    }
}
