import HearthStorageRules

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Rules inside the usual wrapper: `service firebase.storage { match /b/{bucket}/o { … } }`.
func storageRules(_ inner: String, version: Int = 2) throws -> StorageRuleset {
    try StorageRuleset(
        source: """
            rules_version = '\(version)';
            service firebase.storage {
              match /b/{bucket}/o {
            \(inner)
              }
            }
            """)
}

/// A signed-in caller with the given sign-in provider.
func user(_ uid: String, provider: String = "password") -> StorageRuleAuth {
    StorageRuleAuth(
        uid: uid,
        token: .map([
            "sub": .string(uid), "user_id": .string(uid), "email": .string("\(uid)@example.com"),
            "firebase": .map(["sign_in_provider": .string(provider), "identities": .map([:])]),
        ]))
}

/// A stored object, as `resource` sees it.
func stored(
    _ name: String, size: Int64 = 10, contentType: String? = "application/octet-stream", md5: String = "md5-a",
    metadata: [String: String] = [:], created: Date = Date()
) -> StorageObjectFacts {
    StorageObjectFacts(
        name: name, bucket: "bucket", generation: 1, metageneration: 1, size: size, timeCreated: created, updated: created,
        md5Hash: md5, crc32c: "AAAAAA==", etag: "etag", contentType: contentType, metadata: metadata)
}

/// An object as an upload or change proposes it, as `request.resource` sees it.
func proposed(
    _ name: String, size: Int64 = 10, contentType: String? = "application/octet-stream", md5: String = "md5-b",
    metadata: [String: String] = [:]
) -> StorageObjectFacts {
    StorageObjectFacts(
        name: name, bucket: "bucket", size: size, md5Hash: md5, crc32c: "AAAAAA==", contentType: contentType, metadata: metadata)
}

extension StorageRuleset {
    /// Whether the rules allow `method` on `path` in bucket `bucket`.
    func allows(
        _ method: StorageRuleMethod, _ path: String, bucket: String = "bucket", auth: StorageRuleAuth? = nil,
        resource: StorageObjectFacts? = nil, requestResource: StorageObjectFacts? = nil, params: [String: String] = [:]
    ) -> Bool {
        evaluate(
            StorageRuleRequest(
                method: method, bucket: bucket, objectPath: path, auth: auth, resource: resource, requestResource: requestResource,
                params: params)
        ).isAllowed
    }
}
