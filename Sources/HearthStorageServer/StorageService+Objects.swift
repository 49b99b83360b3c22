#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension StorageService {
    /// The object a metadata read or download of the v0 API returns (spec storage-api §3): a
    /// matching download token authorizes it without rules; rules are asked for `get` before
    /// existence is revealed; a token-less object gets its first token.
    func readForFirebase(bucket: String, name: String, token: String?, caller: StorageCaller, params: [String: String])
        async throws -> StoredObject
    {
        try await useBucket(bucket)
        let existing = try await store.object(bucket: bucket, name: name)
        let tokenMatches = token.map { token in existing?.downloadTokens.contains(token) ?? false } ?? false
        if !tokenMatches {
            try authorize(caller, StorageRuleCheck(method: .get, bucket: bucket, path: name, resource: existing, params: params))
        }
        guard let existing else { throw StorageError.objectNotFound(bucket: bucket, name: name) }
        guard existing.downloadTokens.isEmpty else { return existing }
        return try await mutations.run(.metadata) { [self] in
            guard var object = try await store.object(bucket: bucket, name: name) else {
                throw StorageError.objectNotFound(bucket: bucket, name: name)
            }
            guard object.downloadTokens.isEmpty else { return object }
            object.downloadTokens = [UUID().uuidString.lowercased()]
            object.metageneration += 1
            try await store.put(object)
            return object
        }
    }

    /// An object as admin (the GCS API), optionally of one generation: another is not found,
    /// since Hearth keeps no old generations.
    func readAsAdmin(bucket: String, name: String, generation: Int64? = nil) async throws -> StoredObject {
        guard let object = try await store.object(bucket: bucket, name: name), generation == nil || generation == object.generation
        else { throw StorageError.objectNotFound(bucket: bucket, name: name) }
        return object
    }

    /// Applies a metadata change (v0 PATCH: rules `update`; GCS PATCH: admin) and returns the
    /// object after it; the metageneration goes up by one.
    func patch(bucket: String, name: String, change: MetadataChange, caller: StorageCaller, params: [String: String])
        async throws -> StoredObject
    {
        try await useBucket(bucket)
        return try await mutations.run(.metadata) { [self] in
            let existing = try await store.object(bucket: bucket, name: name)
            var proposed = existing.map { change.applied(to: $0) }
            proposed?.metageneration += 1
            proposed?.updated = now
            try authorize(
                caller,
                StorageRuleCheck(
                    method: .update, bucket: bucket, path: name, resource: existing, requestResource: proposed, params: params))
            guard let proposed else { throw StorageError.objectNotFound(bucket: bucket, name: name) }
            try proposed.checkCustomMetadataSize()
            try await store.put(proposed)
            return proposed
        }
    }

    /// Deletes an object (rules `delete`) and then its bytes.
    func delete(bucket: String, name: String, caller: StorageCaller, params: [String: String]) async throws {
        try await useBucket(bucket)
        let removed: StoredObject = try await mutations.run(.metadata) { [self] in
            let existing = try await store.object(bucket: bucket, name: name)
            try authorize(caller, StorageRuleCheck(method: .delete, bucket: bucket, path: name, resource: existing, params: params))
            guard let existing else { throw StorageError.objectNotFound(bucket: bucket, name: name) }
            try await store.delete(bucket: bucket, name: name)
            return existing
        }
        await blobs.removeBlob(removed.blob)
    }

    /// Adds a download token (admin only, v0 `create_token=true`).
    func createDownloadToken(bucket: String, name: String) async throws -> StoredObject {
        try await changeTokens(bucket: bucket, name: name) { $0.append(UUID().uuidString.lowercased()) }
    }

    /// Removes download token `token` (admin only, v0 `delete_token=`); a list left empty gets a
    /// new token.
    func deleteDownloadToken(_ token: String, bucket: String, name: String) async throws -> StoredObject {
        try await changeTokens(bucket: bucket, name: name) { tokens in
            tokens.removeAll { $0 == token }
            if tokens.isEmpty { tokens.append(UUID().uuidString.lowercased()) }
        }
    }

    private func changeTokens(bucket: String, name: String, _ change: @escaping @Sendable (inout [String]) -> Void) async throws
        -> StoredObject
    {
        try await mutations.run(.metadata) { [self] in
            guard var object = try await store.object(bucket: bucket, name: name) else {
                throw StorageError.objectNotFound(bucket: bucket, name: name)
            }
            change(&object.downloadTokens)
            object.metageneration += 1
            try await store.put(object)
            return object
        }
    }

    /// Every object and bucket removed, uploads in progress included (`/internal/reset`).
    func reset() async throws {
        try await mutations.run(.metadata) { [self] in
            try await store.reset()
            try await blobs.removeEverything()
        }
    }
}

extension StorageService {
    /// Copies an object (GCS `copyTo` / `rewriteTo`, admin): new bytes and a new generation,
    /// the source's metadata with `change` applied.
    func copy(bucket: String, name: String, toBucket: String, toName: String, change: MetadataChange) async throws
        -> StoredObject
    {
        try ObjectName.validate(toName)
        try await useBucket(toBucket)
        let source = try await readAsAdmin(bucket: bucket, name: name)
        var proposed = change.applied(to: source)
        proposed.downloadTokens = []
        try proposed.checkCustomMetadataSize()
        let blob = BlobID.make()
        try await blobs.copy(blob: source.blob, to: blob)
        let (stored, replaced): (StoredObject, StoredObject?) = try await mutations.run(.metadata) { [self, proposed] in
            let existing = try await store.object(bucket: toBucket, name: toName)
            var copy = proposed
            copy.bucket = toBucket
            copy.name = toName
            copy.generation = newGeneration
            copy.metageneration = 1
            copy.timeCreated = now
            copy.updated = copy.timeCreated
            copy.blob = blob
            try await store.put(copy)
            return (copy, existing)
        }
        if let replaced { await blobs.removeBlob(replaced.blob) }
        return stored
    }
}
