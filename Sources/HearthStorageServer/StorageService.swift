import HearthCore
import HearthSupport
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Cloud Storage for Firebase: buckets of objects whose metadata lives in ``StorageStore`` and
/// whose bytes live in a ``BlobStore``, guarded by storage rules.
///
/// The operations here know nothing of HTTP; ``StorageEndpoint`` parses requests into them.
/// Bytes stream from the request to their store and from there to the response: no operation
/// holds an object in memory. Changes of metadata run one at a time (``StorageSections``), across a
/// cluster too; an object's new bytes are durable before its metadata names them, and its old
/// bytes are removed after.
public final class StorageService: Sendable {
    let store: any StorageStore
    let blobs: any BlobStore
    package let rules: StorageRulesState
    let settings: StorageSettings
    let mutations: StorageSections
    /// Finalizations of resumable uploads, one at a time: a finalize whose client gave up on it
    /// (its connection dropped) may still run when the client's retry does, on this node or
    /// another, and the second must see the first's outcome rather than finalize the upload's
    /// bytes again.
    let finalizations: StorageSections
    let logger: Logger
    /// When expired resumable uploads were last swept at a start.
    let lastSweep = Mutex<ContinuousClock.Instant?>(nil)

    private init(
        store: any StorageStore, blobs: any BlobStore, rules: StorageRulesState, settings: StorageSettings, logger: Logger
    ) {
        self.store = store
        self.mutations = StorageSections(store: store)
        self.finalizations = StorageSections(store: store)
        self.blobs = blobs
        self.rules = rules
        self.settings = settings
        self.logger = logger
    }

    /// Opens the storage at `location`, removing blobs a crash left unnamed and resumable
    /// uploads that expired while it was closed. Blobs other nodes share are removed only once
    /// old enough that no node can be about to name them.
    package static func open(location: StorageLocation, settings: StorageSettings, rules: StorageRulesState, logger: Logger)
        async throws -> StorageService
    {
        let blobs: any BlobStore
        let store: any StorageStore
        let unnamedFor: Duration
        switch location {
        case .dataDirectory(let dataDirectory):
            let directory = BlobDirectory(root: dataDirectory + "/storage")
            try await directory.prepare()
            store = try await SQLiteStorageStore.open(directory: directory.root, logger: logger)
            blobs = directory
            unnamedFor = .zero
        case .postgres(let address, let blobDirectory):
            let shared = try await PostgresStorageStore.open(address)
            if let blobDirectory {
                let directory = BlobDirectory(root: blobDirectory)
                do {
                    try await directory.prepare()
                    try await directory.bind(to: try await shared.identity())
                } catch {
                    await shared.close()
                    throw error
                }
                blobs = directory
            } else {
                blobs = PostgresBlobStore(database: shared.database)
            }
            store = shared
            unnamedFor = Self.sharedOrphanAge
        }
        do {
            let orphans = try await blobs.removeOrphans(keeping: try await store.referencedBlobs(), unnamedFor: unnamedFor)
            if orphans > 0 { logger.notice("removed \(orphans) unrecorded storage blob(s) left by an interrupted write") }
        } catch {
            await store.close()
            throw error
        }
        let service = StorageService(store: store, blobs: blobs, rules: rules, settings: settings, logger: logger)
        do {
            try await service.removeExpiredUploads()
        } catch {
            await store.close()
            throw error
        }
        return service
    }

    /// How long a blob other nodes share must have been unnamed before a starting node removes
    /// it: another node may have written it and be about to record it.
    static let sharedOrphanAge: Duration = .seconds(3600)

    package func close() async {
        await store.close()
    }

    /// Why objects cannot be read or written now, or `nil` when they can.
    package func unavailability() async -> String? {
        await store.unavailability()
    }

    /// The current time in milliseconds since 1970.
    var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A new generation: the clock in microseconds, as GCS's generations are.
    var newGeneration: Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    /// Creates `bucket` on first use in development, as the emulator does; production serves
    /// only buckets that exist (the project's default buckets exist from the start).
    func useBucket(_ bucket: String) async throws {
        guard try await store.bucketCreated(bucket) == nil else { return }
        if settings.production && !settings.defaultBuckets.contains(bucket) { throw StorageError.bucketNotFound }
        try await store.ensureBucket(bucket, now: now)
    }

    /// Refuses `request` unless `caller` is admin or the rules allow it.
    func authorize(_ caller: StorageCaller, _ request: StorageRuleCheck) throws(StorageError) {
        if caller == .admin { return }
        try rules.authorize(caller: caller, request, now: now)
    }
}

/// Storage's settings, from ``HearthConfiguration``.
public struct StorageSettings: Sendable {
    /// The largest object Storage accepts, in bytes.
    public var maximumObjectSize: Int64
    /// Production: no emulator control endpoints, the GCS API needs admin credentials, and
    /// only existing buckets are served.
    public var production: Bool
    /// The project's buckets, which exist from the start: `<project>.appspot.com` and
    /// `<project>.firebasestorage.app`.
    public var defaultBuckets: [String]
    /// Expiry and per-caller caps of resumable uploads.
    public var resumableUploads = ResumableUploadLimits()

    public init(projectID: String, maximumObjectSize: Int64 = 5 << 40, production: Bool = false) {
        self.maximumObjectSize = maximumObjectSize
        self.production = production
        self.defaultBuckets = ["\(projectID).appspot.com", "\(projectID).firebasestorage.app"]
    }
}
