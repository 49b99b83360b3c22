#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The operations storage rules decide on (spec storage-api §12). `read` in a rules file covers
/// `get` and `list`; `write` covers `create`, `update` and `delete`.
public enum StorageRuleMethod: String, Sendable, CaseIterable {
    case get, list, create, update, delete

    /// The umbrella method of a rules file that also covers this one.
    var umbrella: String {
        switch self {
        case .get, .list: "read"
        case .create, .update, .delete: "write"
        }
    }
}

/// `request.auth`: the caller's uid and the claims of their ID token.
public struct StorageRuleAuth: Sendable {
    public var uid: String?
    /// All claims of the token, as a map.
    public var token: StorageRulesValue

    public init(uid: String?, token: StorageRulesValue) {
        self.uid = uid
        self.token = token
    }
}

/// An object as rules see it: `resource`, or `request.resource`, for which callers leave the
/// generations, etag and times unset (spec storage-api §14.2); unset fields are absent.
public struct StorageObjectFacts: Sendable {
    public var name: String
    public var bucket: String
    public var generation: Int64?
    public var metageneration: Int64?
    public var size: Int64
    public var timeCreated: Date?
    public var updated: Date?
    public var md5Hash: String?
    public var crc32c: String?
    public var etag: String?
    public var contentType: String?
    public var contentDisposition: String?
    public var contentEncoding: String?
    public var contentLanguage: String?
    /// Custom metadata; empty when there is none.
    public var metadata: [String: String]

    public init(
        name: String, bucket: String, generation: Int64? = nil, metageneration: Int64? = nil, size: Int64,
        timeCreated: Date? = nil, updated: Date? = nil, md5Hash: String? = nil, crc32c: String? = nil, etag: String? = nil,
        contentType: String? = nil, contentDisposition: String? = nil, contentEncoding: String? = nil,
        contentLanguage: String? = nil, metadata: [String: String] = [:]
    ) {
        self.name = name
        self.bucket = bucket
        self.generation = generation
        self.metageneration = metageneration
        self.size = size
        self.timeCreated = timeCreated
        self.updated = updated
        self.md5Hash = md5Hash
        self.crc32c = crc32c
        self.etag = etag
        self.contentType = contentType
        self.contentDisposition = contentDisposition
        self.contentEncoding = contentEncoding
        self.contentLanguage = contentLanguage
        self.metadata = metadata
    }

    /// The object as a rules map; unset fields are absent, so reading them is an error.
    var rulesValue: StorageRulesValue {
        var fields: [String: StorageRulesValue] = [
            "name": .string(name), "bucket": .string(bucket), "size": .int(size),
            "metadata": .map(metadata.mapValues { .string($0) }),
        ]
        let optionalStrings: [(String, String?)] = [
            ("md5Hash", md5Hash), ("crc32c", crc32c), ("etag", etag), ("contentType", contentType),
            ("contentDisposition", contentDisposition), ("contentEncoding", contentEncoding),
            ("contentLanguage", contentLanguage),
        ]
        for (key, value) in optionalStrings { if let value { fields[key] = .string(value) } }
        if let generation { fields["generation"] = .int(generation) }
        if let metageneration { fields["metageneration"] = .int(metageneration) }
        if let timeCreated { fields["timeCreated"] = .timestamp(RulesTimestamp(timeCreated)) }
        if let updated { fields["updated"] = .timestamp(RulesTimestamp(updated)) }
        return .map(fields)
    }
}

/// One request put to the rules (spec storage-api §12, §14).
public struct StorageRuleRequest: Sendable {
    public var method: StorageRuleMethod
    public var bucket: String
    /// The object name; for a list, the prefix without its trailing `/`.
    public var objectPath: String
    /// `nil` for a signed-out caller.
    public var auth: StorageRuleAuth?
    /// The object as stored, if there is one.
    public var resource: StorageObjectFacts?
    /// The object as an upload or metadata change would leave it.
    public var requestResource: StorageObjectFacts?
    public var time: Date
    /// The request's query parameters.
    public var params: [String: String]

    public init(
        method: StorageRuleMethod, bucket: String, objectPath: String, auth: StorageRuleAuth? = nil,
        resource: StorageObjectFacts? = nil, requestResource: StorageObjectFacts? = nil, time: Date = Date(),
        params: [String: String] = [:]
    ) {
        self.method = method
        self.bucket = bucket
        self.objectPath = objectPath
        self.auth = auth
        self.resource = resource
        self.requestResource = requestResource
        self.time = time
        self.params = params
    }

    /// `request.path` as the emulator lays it out: `b`, the bucket, `o`, then the object's
    /// non-empty segments.
    var pathSegments: [String] {
        ["b", bucket, "o"] + objectPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }
}

/// Whether rules allowed a request, and each `allow` statement evaluated with its outcome.
public struct StorageRuleDecision: Sendable {
    public var isAllowed: Bool
    /// One line per `allow` statement considered, such as
    /// `line 4: allow write: if request.auth != null → false`.
    public var explanation: [String]
}

extension RulesTimestamp {
    /// `date`, to the microsecond, clamped to the representable range.
    init(_ date: Date) {
        let interval = date.timeIntervalSince1970
        let bounds = Double(Self.representable.lowerBound)...Double(Self.representable.upperBound)
        let seconds = min(max(interval.rounded(.down), bounds.lowerBound), bounds.upperBound)
        let microseconds = min(max(((interval - seconds) * 1_000_000).rounded(), 0), 999_999)
        self.init(seconds: Int64(seconds), nanos: Int64(microseconds) * 1000)
    }
}
