import HearthStorageRules

/// What rules are asked about one request (spec storage-api §12): the method, the object path,
/// and the object before and after.
struct StorageRuleCheck: Sendable {
    var method: StorageRuleMethod
    var bucket: String
    /// The object name; for a list, the prefix without its trailing `/`.
    var path: String
    var resource: StoredObject?
    /// The object as it would be after an upload or PATCH.
    var requestResource: StoredObject?
    /// The request's query parameters (`request.params`).
    var params: [String: String] = [:]

    /// The permission a denial names (`No READ permission.`).
    var permission: String {
        switch method {
        case .get: "READ"
        case .list: "LIST"
        case .create, .update, .delete: "WRITE"
        }
    }
}
