import HearthPostgres
import NIOCore
import PostgresNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The metadata of Storage in PostgreSQL, shared by every node given the same database:
/// - `hearth_storage_buckets`: every bucket, created on first use;
/// - `hearth_storage_objects`: one row per object, its ``StoredObject`` as JSON text, keyed by
///   bucket and name; names are kept as their UTF-8 bytes (`bytea`), which order as listings
///   order them and may hold any character (text cannot hold U+0000);
/// - `hearth_storage_uploads`: resumable uploads, their state, owner, bytes received and last
///   activity in columns of their own for the caps' queries.
///
/// Sections that read, modify and write hold a session advisory lock
/// (``exclusively(_:_:)``) on a connection of the pool, so that they run one at a time across
/// the cluster; a node that dies holding it frees it with its session.
final class PostgresStorageStore: StorageStore {
    /// The pool, which the blobs share when they are kept in PostgreSQL too (``PostgresBlobStore``).
    let database: ClusterDatabase

    static let statements = [
        "CREATE TABLE IF NOT EXISTS hearth_storage_buckets (name text PRIMARY KEY, created bigint NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS hearth_storage_objects (bucket text NOT NULL, name bytea NOT NULL, blob text NOT NULL,
          record text NOT NULL, PRIMARY KEY (bucket, name))
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_storage_uploads (id text PRIMARY KEY, state text NOT NULL, owner text,
          received bigint NOT NULL, last_activity bigint, record text NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS hearth_storage_uploads_by_activity ON hearth_storage_uploads (last_activity)",
        "CREATE TABLE IF NOT EXISTS hearth_storage_identity (id int PRIMARY KEY CHECK (id = 1), cluster text NOT NULL)",
        "INSERT INTO hearth_storage_identity (id, cluster) VALUES (1, gen_random_uuid()::text) ON CONFLICT (id) DO NOTHING",
    ]

    private init(database: ClusterDatabase) {
        self.database = database
    }

    /// Connects to the database at `address`, creating the tables that are missing.
    static func open(_ address: PostgresAddress) async throws -> PostgresStorageStore {
        PostgresStorageStore(database: try await ClusterDatabase.open(address, schema: statements + PostgresBlobStore.statements))
    }

    /// The identity of this database's Storage, which the blob directory is bound to
    /// (``BlobDirectory/bind(to:)``).
    func identity() async throws -> String {
        guard let identity = try await database.query("SELECT cluster FROM hearth_storage_identity").first else {
            throw ClusterDatabaseError.unavailable("hearth_storage_identity has no row")
        }
        return try identity.decode(String.self)
    }

    func unavailability() async -> String? {
        await database.unavailability()
    }

    func close() async {
        await database.close()
    }

    func exclusively<Result: Sendable>(_ lock: StorageLock, _ body: @Sendable () async throws -> Result) async throws
        -> Result
    {
        let (locking, unlocking) = Self.statements(for: lock)
        return try await database.client.withConnection { connection in
            _ = try await connection.query(locking, logger: ClusterDatabase.quietLogger)
            let result: Result
            do {
                result = try await body()
            } catch {
                await Self.release(unlocking, on: connection)
                throw error
            }
            // What the section did is done: a failure to unlock is not the section's.
            await Self.release(unlocking, on: connection)
            return result
        }
    }

    /// Unlocks; a connection that cannot is closed, which ends its session and so its locks.
    private static func release(_ unlocking: PostgresQuery, on connection: PostgresConnection) async {
        do {
            _ = try await connection.query(unlocking, logger: ClusterDatabase.quietLogger)
        } catch {
            try? await connection.close()
        }
    }

    /// The statements that take and give back `lock`: one number for every change of metadata,
    /// two (a class and the upload id's hash) for a finalization, so that uploads finalize at once.
    private static func statements(for lock: StorageLock) -> (PostgresQuery, PostgresQuery) {
        switch lock {
        case .metadata:
            let key: Int64 = 0x4845_4152_5453  // "HEARTS"
            return ("SELECT pg_advisory_lock(\(key))", "SELECT pg_advisory_unlock(\(key))")
        case .finalization(let id):
            let kind: Int32 = 0x4846_494E  // "HFIN"
            let hash = Int32(truncatingIfNeeded: id.utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 })
            return ("SELECT pg_advisory_lock(\(kind), \(hash))", "SELECT pg_advisory_unlock(\(kind), \(hash))")
        }
    }

    // MARK: Buckets

    @discardableResult
    func ensureBucket(_ name: String, now: Int64) async throws -> Int64 {
        _ = try await database.query("INSERT INTO hearth_storage_buckets (name, created) VALUES (\(name), \(now)) ON CONFLICT DO NOTHING")
        return try await bucketCreated(name) ?? now
    }

    func bucketCreated(_ name: String) async throws -> Int64? {
        try await database.query("SELECT created FROM hearth_storage_buckets WHERE name = \(name)").first?.decode(Int64.self)
    }

    func buckets() async throws -> [(name: String, created: Int64)] {
        try await database.query("SELECT name, created FROM hearth_storage_buckets ORDER BY name COLLATE \"C\"").map {
            try $0.decode((String, Int64).self)
        }
    }

    // MARK: Objects

    func object(bucket: String, name: String) async throws -> StoredObject? {
        let rows = try await database.query(
            "SELECT record FROM hearth_storage_objects WHERE bucket = \(bucket) AND name = \(Self.bytes(name))")
        return try rows.first.map { try StorageRecords.decode(StoredObject.self, try $0.decode(String.self)) }
    }

    func put(_ object: StoredObject) async throws {
        let record = try StorageRecords.encode(object)
        _ = try await database.query(
            """
            INSERT INTO hearth_storage_objects (bucket, name, blob, record)
            VALUES (\(object.bucket), \(Self.bytes(object.name)), \(object.blob), \(record))
            ON CONFLICT (bucket, name) DO UPDATE SET blob = EXCLUDED.blob, record = EXCLUDED.record
            """)
    }

    func delete(bucket: String, name: String) async throws {
        _ = try await database.query("DELETE FROM hearth_storage_objects WHERE bucket = \(bucket) AND name = \(Self.bytes(name))")
    }

    func objects(bucket: String, prefix: String, after: [UInt8]?, limit: Int) async throws -> [StoredObject] {
        let lower = Self.bytes(prefix)
        let upper = ByteBuffer(bytes: StorageNames.beyondEveryName(startingWith: prefix))
        let rows: [PostgresRow]
        if let after {
            rows = try await database.query(
                """
                SELECT record FROM hearth_storage_objects WHERE bucket = \(bucket) AND name > \(ByteBuffer(bytes: after))
                AND name >= \(lower) AND name < \(upper) ORDER BY name LIMIT \(limit)
                """)
        } else {
            rows = try await database.query(
                """
                SELECT record FROM hearth_storage_objects WHERE bucket = \(bucket)
                AND name >= \(lower) AND name < \(upper) ORDER BY name LIMIT \(limit)
                """)
        }
        return try rows.map { try StorageRecords.decode(StoredObject.self, try $0.decode(String.self)) }
    }

    func referencedBlobs() async throws -> Set<String> {
        Set(try await database.query("SELECT blob FROM hearth_storage_objects").map { try $0.decode(String.self) })
    }

    // MARK: Uploads

    func upload(_ id: String) async throws -> ResumableUpload? {
        try await database.query("SELECT record FROM hearth_storage_uploads WHERE id = \(id)").first.map {
            try StorageRecords.decode(ResumableUpload.self, try $0.decode(String.self))
        }
    }

    func put(_ upload: ResumableUpload) async throws {
        let record = try StorageRecords.encode(upload)
        _ = try await database.query(
            """
            INSERT INTO hearth_storage_uploads (id, state, owner, received, last_activity, record)
            VALUES (\(upload.id), \(upload.state.rawValue), \(upload.owner), \(upload.received), \(upload.lastActivity),
              \(record))
            ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, owner = EXCLUDED.owner, received = EXCLUDED.received,
              last_activity = EXCLUDED.last_activity, record = EXCLUDED.record
            """)
    }

    func deleteUpload(_ id: String) async throws {
        _ = try await database.query("DELETE FROM hearth_storage_uploads WHERE id = \(id)")
    }

    func openUploads(owner: String, activeSince cutoff: Int64) async throws -> (count: Int, bytes: Int64) {
        let rows = try await database.query(
            """
            SELECT COUNT(*), COALESCE(SUM(received), 0)::bigint FROM hearth_storage_uploads
            WHERE state = 'active' AND owner = \(owner) AND COALESCE(last_activity, 0) >= \(cutoff)
            """)
        guard let (count, bytes) = try rows.first?.decode((Int64, Int64).self) else { return (0, 0) }
        return (Int(count), bytes)
    }

    func uploads(idleSince cutoff: Int64) async throws -> [String] {
        try await database.query("SELECT id FROM hearth_storage_uploads WHERE COALESCE(last_activity, 0) < \(cutoff)").map {
            try $0.decode(String.self)
        }
    }

    func reset() async throws {
        _ = try await database.query("TRUNCATE hearth_storage_objects, hearth_storage_uploads, hearth_storage_buckets")
    }

    /// A name as PostgreSQL keeps it: its UTF-8 bytes, as `bytea`.
    private static func bytes(_ name: String) -> ByteBuffer {
        ByteBuffer(string: name)
    }
}
