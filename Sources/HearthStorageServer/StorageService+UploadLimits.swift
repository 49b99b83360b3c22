/// The limits of ``ResumableUploadLimits``: idle sessions expire with their bytes, and a
/// caller's open sessions and unfinished bytes are capped.
///
/// Expired sessions are swept when Storage opens (so expiry survives a restart: the last activity
/// is part of the durable record) and at a resumable start at most once a minute; one touched
/// after expiring is deleted then and answered as unknown (404). The caps count only sessions
/// that have not expired, so when the sweep runs changes nothing they decide.
extension StorageService {
    /// Whether `upload` has been idle past the expiry.
    func isExpired(_ upload: ResumableUpload) -> Bool {
        (upload.lastActivity ?? 0) < expiryCutoff
    }

    /// The time (ms) before which an upload that has not moved on counts as expired.
    private var expiryCutoff: Int64 { now - settings.resumableUploads.idleExpiryMilliseconds }

    /// Deletes every upload idle past the expiry, records and bytes.
    func removeExpiredUploads() async throws {
        for id in try await store.uploads(idleSince: expiryCutoff) {
            try await removeUpload(id)
        }
    }

    /// Sweeps expired uploads unless a sweep ran within the last minute: a resumable start, where
    /// it runs, must not scan every upload each time.
    func removeExpiredUploadsNowAndThen() async throws {
        let due = lastSweep.withLock { last in
            let now = ContinuousClock.now
            guard last.map({ now - $0 >= .seconds(60) }) ?? true else { return false }
            last = now
            return true
        }
        if due { try await removeExpiredUploads() }
    }

    func removeUpload(_ id: String) async throws {
        try await store.deleteUpload(id)
        await blobs.removeUpload(id)
    }

    /// Refuses a new session of `owner` past its caps; a declared size counts as already
    /// received, so that an upload bound to be refused is refused at once. Run within
    /// ``mutations`` with the session's creation, so that concurrent starts see each other.
    func admitUpload(owner: String?, declaredSize: Int64?) async throws {
        guard let owner else { return }
        let limits = settings.resumableUploads
        let open = try await store.openUploads(owner: owner, activeSince: expiryCutoff)
        if open.count >= limits.sessionsPerCaller { throw StorageError.tooManyUploads(limit: limits.sessionsPerCaller) }
        if open.bytes + (declaredSize ?? 0) > limits.unfinishedBytesPerCaller {
            throw StorageError.unfinishedBytesExceeded(limit: limits.unfinishedBytesPerCaller)
        }
    }

    /// How large `upload`'s file may grow, and the refusal past that: the object size limit, or
    /// less when the owner's other open sessions leave less of its allowance. (Chunks streaming
    /// at once into several sessions of one owner may together overshoot by what they carry.)
    func growthLimit(of upload: ResumableUpload) async throws -> (limit: Int64, refusal: StorageError) {
        let objectLimit = (settings.maximumObjectSize, StorageError.objectTooLarge(limit: settings.maximumObjectSize))
        guard let owner = upload.owner else { return objectLimit }
        let cap = settings.resumableUploads.unfinishedBytesPerCaller
        let others = try await store.openUploads(owner: owner, activeSince: expiryCutoff).bytes - upload.received
        return cap - others < settings.maximumObjectSize ? (cap - others, .unfinishedBytesExceeded(limit: cap)) : objectLimit
    }
}
