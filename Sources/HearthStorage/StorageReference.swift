import Foundation
@_spi(HearthSDK) import HearthApp

/// A location in a bucket, under the Firebase Apple SDK's name: navigate with ``child(_:)``,
/// ``parent()`` and ``root()``; upload, download, list, read and change metadata, delete.
public final class StorageReference: Sendable, Hashable, CustomStringConvertible {
    public let storage: Storage
    /// The path from the bucket's root, without leading or trailing slashes.
    public let fullPath: String

    init(storage: Storage, path: String) {
        self.storage = storage
        fullPath = path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    public var bucket: String { storage.bucket }
    /// The last segment of the path ("" at the root).
    public var name: String { String(fullPath.split(separator: "/").last ?? "") }
    /// `gs://bucket/path`.
    public var description: String { "gs://\(bucket)/\(fullPath)" }

    /// References are equal when they name the same object of the same bucket.
    public static func == (lhs: StorageReference, rhs: StorageReference) -> Bool {
        lhs.bucket == rhs.bucket && lhs.fullPath == rhs.fullPath
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bucket)
        hasher.combine(fullPath)
    }

    public func child(_ path: String) -> StorageReference {
        StorageReference(storage: storage, path: fullPath + "/" + path)
    }

    /// The reference one level up; `nil` at the root.
    public func parent() -> StorageReference? {
        guard !fullPath.isEmpty else { return nil }
        return StorageReference(storage: storage, path: String(fullPath.split(separator: "/").dropLast().joined(separator: "/")))
    }

    public func root() -> StorageReference {
        storage.reference()
    }

    // MARK: Metadata, listing, deletion

    /// The object's metadata.
    public func getMetadata() async throws -> StorageMetadata {
        StorageMetadata(json: try await StorageClient(self).json(.GET, objectURL))
    }

    public func getMetadata(completion: @escaping (StorageMetadata?, (any Error)?) -> Void) {
        callBack(completion) { try await self.getMetadata() }
    }

    /// Changes the object's writable metadata: the fields set, unset or changed since it was read.
    public func updateMetadata(_ metadata: StorageMetadata) async throws -> StorageMetadata {
        StorageMetadata(json: try await StorageClient(self).json(.PATCH, objectURL, body: metadata.changes))
    }

    public func updateMetadata(_ metadata: StorageMetadata, completion: ((StorageMetadata?, (any Error)?) -> Void)? = nil) {
        callBack(completion) { try await self.updateMetadata(metadata) }
    }

    /// The object's download URL: readable by anyone who has it, with no other credential.
    public func downloadURL() async throws -> URL {
        let metadata = try await getMetadata()
        guard let token = metadata.downloadTokens.first,
            let url = URL(string: "\(objectURL)?alt=media&token=\(StorageClient.component(token))")
        else {
            throw StorageError.unknown(message: "Failed to retrieve a download URL.", serverError: [:])
        }
        return url
    }

    public func downloadURL(completion: @escaping (URL?, (any Error)?) -> Void) {
        callBack(completion) { try await self.downloadURL() }
    }

    /// Deletes the object.
    public func delete() async throws {
        _ = try await StorageClient(self).checked(.DELETE, objectURL)
    }

    public func delete(completion: (((any Error)?) -> Void)? = nil) {
        callBack({ (_: Bool?, error) in completion?(error) }) {
            try await self.delete()
            return true
        }
    }

    /// One page of the objects and prefixes directly below this reference.
    public func list(maxResults: Int64, pageToken: String? = nil) async throws -> StorageListResult {
        guard (1...1000).contains(maxResults) else {
            throw StorageError.invalidArgument(message: "Argument 'maxResults' must be between 1 and 1000 inclusive.")
        }
        return try await listPage(maxResults: maxResults, pageToken: pageToken)
    }

    public func list(maxResults: Int64, completion: @escaping (StorageListResult?, (any Error)?) -> Void) {
        callBack(completion) { try await self.list(maxResults: maxResults) }
    }

    public func list(maxResults: Int64, pageToken: String, completion: @escaping (StorageListResult?, (any Error)?) -> Void) {
        callBack(completion) { try await self.list(maxResults: maxResults, pageToken: pageToken) }
    }

    /// Every object and prefix directly below this reference, page after page.
    public func listAll() async throws -> StorageListResult {
        var items: [StorageReference] = []
        var prefixes: [StorageReference] = []
        var token: String?
        repeat {
            let page = try await listPage(maxResults: nil, pageToken: token)
            items += page.items
            prefixes += page.prefixes
            token = page.pageToken
        } while token != nil
        return StorageListResult(items: items, prefixes: prefixes, pageToken: nil)
    }

    public func listAll(completion: @escaping (StorageListResult?, (any Error)?) -> Void) {
        callBack(completion) { try await self.listAll() }
    }

    private func listPage(maxResults: Int64?, pageToken: String?) async throws -> StorageListResult {
        var query = [
            URLQueryItem(name: "prefix", value: fullPath.isEmpty ? "" : fullPath + "/"), URLQueryItem(name: "delimiter", value: "/"),
        ]
        if let maxResults { query.append(URLQueryItem(name: "maxResults", value: String(maxResults))) }
        if let pageToken { query.append(URLQueryItem(name: "pageToken", value: pageToken)) }
        let json = try await StorageClient(self).json(.GET, bucketURL + "?" + StorageClient.query(query))
        let items = (json["items"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }.map { root().child($0) }
        let prefixes = (json["prefixes"] as? [String] ?? []).map { root().child($0) }
        return StorageListResult(items: items, prefixes: prefixes, pageToken: json["nextPageToken"] as? String)
    }

    // MARK: URLs

    /// `/v0/b/<bucket>/o`.
    var bucketURL: String {
        "\(storage.baseURL)/v0/b/\(StorageClient.component(bucket))/o"
    }

    /// `/v0/b/<bucket>/o/<path as one component>`.
    var objectURL: String {
        "\(bucketURL)/\(StorageClient.component(fullPath))"
    }

    /// Runs `operation` and hands its result or error to `completion` on the callback queue.
    func callBack<Result: Sendable>(
        _ completion: ((Result?, (any Error)?) -> Void)?, _ operation: @escaping @Sendable () async throws -> Result
    ) {
        let queue = storage.callbackQueue
        let completion = UncheckedSendable(completion)
        Task {
            do {
                let result = try await operation()
                queue.async { completion.value?(result, nil) }
            } catch {
                queue.async { completion.value?(nil, error) }
            }
        }
    }
}
