import HearthEdge

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One page of a listing: objects and "folders" in one name order.
struct ListPage: Sendable {
    var prefixes: [String] = []
    var items: [StoredObject] = []
    /// Resumes strictly after the page's last entry; `nil` on the last page.
    var nextPageToken: String?
}

/// How a listing reads names: the v0 API hides names with empty segments (spec storage-api §6),
/// the GCS API shows every name.
enum ListingStyle: Sendable {
    case firebase
    case cloud
}

extension StorageService {
    /// The v0 listing (rules `list` on the prefix without its trailing `/`); the prefix must be
    /// empty or end with `/`.
    func listForFirebase(
        bucket: String, prefix: String, delimiter: String?, pageToken: String?, maxResults: Int, caller: StorageCaller,
        params: [String: String]
    ) async throws -> ListPage {
        guard prefix.isEmpty || prefix.hasSuffix("/") else {
            throw StorageError.badRequest("The prefix parameter is required to be empty or ends with a single / character.")
        }
        try await useBucket(bucket)
        try authorize(
            caller, StorageRuleCheck(method: .list, bucket: bucket, path: String(prefix.dropLast(prefix.isEmpty ? 0 : 1)), params: params))
        return try await list(
            bucket: bucket, prefix: prefix, delimiter: delimiter, pageToken: pageToken, maxResults: maxResults, style: .firebase)
    }

    /// Up to `maxResults` entries — items and distinct prefixes counted together, merged in name
    /// order — after the entry `pageToken` names.
    func list(bucket: String, prefix: String, delimiter: String?, pageToken: String?, maxResults: Int, style: ListingStyle)
        async throws -> ListPage
    {
        var page = ListPage()
        var cursor = pageToken.flatMap(Self.entry(ofPageToken:)).map { Self.afterEntry($0, delimiter: delimiter) }
        var count = 0
        var lastEntry: String?
        scanning: while true {
            let batch = try await store.objects(bucket: bucket, prefix: prefix, after: cursor, limit: 500)
            if batch.isEmpty { break }
            for object in batch {
                let rest = object.name.dropFirst(prefix.count)
                if let delimiter, !delimiter.isEmpty, let range = rest.range(of: delimiter) {
                    let folder = prefix + rest[..<range.upperBound]
                    if count == maxResults {
                        page.nextPageToken = lastEntry.map(Self.pageToken(of:))
                        break scanning
                    }
                    if style == .cloud || Self.isVisibleFolder(folder) {
                        page.prefixes.append(folder)
                        count += 1
                        lastEntry = folder
                    }
                    cursor = Self.afterEntry(folder, delimiter: delimiter)
                    continue scanning
                }
                cursor = Array(object.name.utf8)
                guard style == .cloud || Self.isVisibleItem(object.name) else { continue }
                if count == maxResults {
                    page.nextPageToken = lastEntry.map(Self.pageToken(of:))
                    break scanning
                }
                page.items.append(object)
                count += 1
                lastEntry = object.name
            }
        }
        return page
    }

    /// The bytes a scan resumes after to pass `entry`: for a folder, past every name below it.
    private static func afterEntry(_ entry: String, delimiter: String?) -> [UInt8] {
        if let delimiter, !delimiter.isEmpty, entry.hasSuffix(delimiter) {
            return StorageNames.beyondEveryName(startingWith: entry)
        }
        return Array(entry.utf8)
    }

    /// Page tokens are the last entry of the previous page, base64-encoded to stay opaque.
    private static func pageToken(of entry: String) -> String { Base64URL.encode(Array(entry.utf8)) }

    private static func entry(ofPageToken token: String) -> String? {
        Base64URL.decode(token).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Whether the v0 API lists an item: without one leading `/` it is not empty and has no
    /// empty segment.
    private static func isVisibleItem(_ name: String) -> Bool {
        let trimmed = name.hasPrefix("/") ? name.dropFirst() : Substring(name)
        return !trimmed.isEmpty && !trimmed.split(separator: "/", omittingEmptySubsequences: false).contains("")
    }

    /// Whether the v0 API lists a folder: as an item once one trailing `/` is dropped.
    private static func isVisibleFolder(_ folder: String) -> Bool {
        isVisibleItem(folder.hasSuffix("/") ? String(folder.dropLast()) : folder)
    }
}
