import HearthEdge

/// Where a request path leads within Storage (spec storage-api §1.5, §1.6, §9), read from the
/// raw path so that an object name's `%2F` stays inside its segment.
package enum StorageRoute: Equatable, Sendable {
    /// `GET /v0/`: the emulator's greeting.
    case firebaseRoot
    /// `/v0/b/{bucket}/o`: list and uploads.
    case firebaseObjects(bucket: String)
    /// `/v0/b/{bucket}/o/{object}`: one object (and Apple's uploads).
    case firebaseObject(bucket: String, name: String)
    /// `/storage/v1/b` (or `/b`): buckets.
    case cloudBuckets
    /// `/storage/v1/b/{bucket}`.
    case cloudBucket(String)
    /// `/storage/v1/b/{bucket}/o`: list.
    case cloudObjects(bucket: String)
    /// `/storage/v1/b/{bucket}/o/{object}`: metadata, PATCH, DELETE, and `alt=media` downloads.
    case cloudObject(bucket: String, name: String)
    /// `…/o/{object}/copyTo/b/{bucket}/o/{object}` or `rewriteTo`.
    case cloudCopy(bucket: String, name: String, toBucket: String, toName: String)
    /// `…/o/{object}/acl`: accepted without effect, as the emulator does.
    case cloudObjectACL(bucket: String, name: String)
    /// `/upload/storage/v1/b/{bucket}/o`: media, multipart and resumable uploads.
    case cloudUpload(bucket: String)
    /// `/download/storage/v1/b/{bucket}/o/{object}`.
    case cloudDownload(bucket: String, name: String)
    /// `/internal/setRules`, `/internal/reset`, `/internal/export`.
    case control(String)
    /// A Storage prefix with a path it does not serve.
    case invalid

    /// The buckets the route names (a copy names two).
    var buckets: [String] {
        switch self {
        case .firebaseObjects(let bucket), .firebaseObject(let bucket, _), .cloudBucket(let bucket), .cloudObjects(let bucket),
            .cloudObject(let bucket, _), .cloudObjectACL(let bucket, _), .cloudUpload(let bucket), .cloudDownload(let bucket, _):
            [bucket]
        case .cloudCopy(let bucket, _, let toBucket, _): [bucket, toBucket]
        case .firebaseRoot, .cloudBuckets, .control, .invalid: []
        }
    }

    /// Whether `path` belongs to Storage on a port shared with the database: these prefixes win
    /// over database REST paths (documented in the compatibility notes).
    package static func claims(_ path: String) -> Bool {
        ["/v0", "/storage/v1", "/upload/storage/v1", "/download/storage/v1", "/b", "/internal"].contains { prefix in
            path == prefix || path.hasPrefix(prefix + "/")
        }
    }

    init(path: String) {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if segments.last == "" && segments.count > 1 { segments.removeLast() }
        func decoded(_ segment: String) -> String? { PercentDecoding.decode(Array(segment.utf8), plusIsSpace: false) }
        func bucketPath(_ rest: ArraySlice<String>) -> (bucket: String, name: String?, tail: ArraySlice<String>)? {
            guard rest.count >= 2, rest.first == "b", let bucket = decoded(rest[rest.startIndex + 1]), !bucket.isEmpty else {
                return nil
            }
            let afterBucket = rest.dropFirst(2)
            guard let o = afterBucket.first else { return (bucket, nil, []) }
            guard o == "o" else { return nil }
            guard let object = afterBucket.dropFirst().first else { return (bucket, "", []) }
            guard let name = decoded(object) else { return nil }
            return (bucket, name, afterBucket.dropFirst(2))
        }
        switch segments.first {
        case "v0":
            let rest = segments.dropFirst()
            if rest.isEmpty || rest == [""] {
                self = .firebaseRoot
            } else if let (bucket, name, tail) = bucketPath(rest), let name, tail.isEmpty {
                self = name.isEmpty ? .firebaseObjects(bucket: bucket) : .firebaseObject(bucket: bucket, name: name)
            } else {
                self = .invalid
            }
        case "internal" where segments.count == 2:
            self = .control(segments[1])
        case "upload":
            guard segments.count == 6, segments[1] == "storage", segments[2] == "v1",
                let (bucket, name, _) = bucketPath(segments.dropFirst(3)),
                name == ""
            else {
                self = .invalid
                return
            }
            self = .cloudUpload(bucket: bucket)
        case "download":
            guard segments.count == 7, segments[1] == "storage", segments[2] == "v1",
                let (bucket, name, _) = bucketPath(segments.dropFirst(3)),
                let name, !name.isEmpty
            else {
                self = .invalid
                return
            }
            self = .cloudDownload(bucket: bucket, name: name)
        case "storage", "b":
            let rest =
                segments.first == "storage" ? (segments.count >= 2 && segments[1] == "v1" ? segments.dropFirst(2) : []) : segments[...]
            self = Self.cloud(rest, bucketPath: bucketPath)
        default:
            self = .invalid
        }
    }

    /// The GCS JSON routes below `/storage/v1` (or at the root).
    private static func cloud(
        _ rest: ArraySlice<String>, bucketPath: (ArraySlice<String>) -> (bucket: String, name: String?, tail: ArraySlice<String>)?
    ) -> StorageRoute {
        if rest == ["b"] { return .cloudBuckets }
        guard let (bucket, name, tail) = bucketPath(rest) else { return .invalid }
        guard let name else { return .cloudBucket(bucket) }
        if name.isEmpty { return .cloudObjects(bucket: bucket) }
        if tail.isEmpty { return .cloudObject(bucket: bucket, name: name) }
        if tail == ["acl"] { return .cloudObjectACL(bucket: bucket, name: name) }
        if let verb = tail.first, verb == "copyTo" || verb == "rewriteTo",
            let (toBucket, toName, rest) = bucketPath(tail.dropFirst()), let toName, !toName.isEmpty, rest.isEmpty
        {
            return .cloudCopy(bucket: bucket, name: name, toBucket: toBucket, toName: toName)
        }
        return .invalid
    }
}
