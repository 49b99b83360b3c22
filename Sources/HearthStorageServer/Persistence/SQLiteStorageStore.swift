import HearthSupport
import Logging
import SQLiteNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The metadata of Storage on one node: one SQLite database, `<data dir>/storage/storage.sqlite`,
/// in WAL mode with `synchronous=FULL`, so a change is on disk before the request that made it is
/// answered. The bytes of objects are files (``BlobDirectory``); a row names its file.
///
/// - `buckets`: every bucket, created on first use;
/// - `objects`: one row per object, its ``StoredObject`` as JSON, keyed by bucket and name
///   (names compare as UTF-8 bytes, the order listings use);
/// - `uploads`: resumable uploads in progress or finished, as ``ResumableUpload`` JSON (its
///   owner, state, bytes received and last activity are read in SQL with `json_extract`).
///
/// Every method is one SQL statement, so each change is atomic; callers that read, modify and
/// write serialise themselves (``StorageMutations``), which is enough in one process.
final class SQLiteStorageStore: StorageStore {
    private let connection: SQLiteConnection

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Opens (creating if needed) the store in `directory`.
    static func open(directory: String, logger: Logger) async throws -> SQLiteStorageStore {
        let connection = try await DurableSQLite.open(
            path: directory + "/storage.sqlite",
            schema: [
                "CREATE TABLE IF NOT EXISTS buckets (name TEXT PRIMARY KEY, created INTEGER NOT NULL) WITHOUT ROWID",
                """
                CREATE TABLE IF NOT EXISTS objects (bucket TEXT NOT NULL, name TEXT NOT NULL, blob TEXT NOT NULL,
                record TEXT NOT NULL, PRIMARY KEY (bucket, name)) WITHOUT ROWID
                """,
                "CREATE TABLE IF NOT EXISTS uploads (id TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID",
            ], logger: logger)
        return SQLiteStorageStore(connection: connection)
    }

    /// ``DurableSQLite/unavailability(of:)``.
    func unavailability() async -> String? {
        await DurableSQLite.unavailability(of: connection)
    }

    func close() async {
        try? await connection.close()
    }

    func exclusively<Result: Sendable>(_ lock: StorageLock, _ body: @Sendable () async throws -> Result) async throws
        -> Result
    {
        try await body()
    }

    // MARK: Buckets

    @discardableResult
    func ensureBucket(_ name: String, now: Int64) async throws -> Int64 {
        _ = try await connection.query("INSERT OR IGNORE INTO buckets (name, created) VALUES (?, ?)", [.text(name), .integer(Int(now))])
        return try await bucketCreated(name) ?? now
    }

    func bucketCreated(_ name: String) async throws -> Int64? {
        try await connection.query("SELECT created FROM buckets WHERE name = ?", [.text(name)]).first?.column("created")?.integer
            .map(Int64.init)
    }

    func buckets() async throws -> [(name: String, created: Int64)] {
        try await connection.query("SELECT name, created FROM buckets ORDER BY name").map { row in
            (row.column("name")?.string ?? "", Int64(row.column("created")?.integer ?? 0))
        }
    }

    // MARK: Objects

    func object(bucket: String, name: String) async throws -> StoredObject? {
        try await connection.query("SELECT record FROM objects WHERE bucket = ? AND name = ?", [.text(bucket), .text(name)])
            .first.map { try StorageRecords.decode(StoredObject.self, $0.column("record")?.string) }
    }

    func put(_ object: StoredObject) async throws {
        _ = try await connection.query(
            "INSERT OR REPLACE INTO objects (bucket, name, blob, record) VALUES (?, ?, ?, ?)",
            [.text(object.bucket), .text(object.name), .text(object.blob), .text(try StorageRecords.encode(object))])
    }

    func delete(bucket: String, name: String) async throws {
        _ = try await connection.query("DELETE FROM objects WHERE bucket = ? AND name = ?", [.text(bucket), .text(name)])
    }

    /// Bounds are compared as bytes (text cast from a blob, which may hold 0xFF), as names are.
    func objects(bucket: String, prefix: String, after: [UInt8]?, limit: Int) async throws -> [StoredObject] {
        let upper = SQLiteData.blob(ByteBuffer(bytes: StorageNames.beyondEveryName(startingWith: prefix)))
        let rows: [SQLiteRow]
        if let after {
            rows = try await connection.query(
                """
                SELECT record FROM objects WHERE bucket = ? AND name > CAST(? AS TEXT) AND name >= ? AND name < CAST(? AS TEXT)
                ORDER BY name LIMIT ?
                """,
                [.text(bucket), .blob(ByteBuffer(bytes: after)), .text(prefix), upper, .integer(limit)])
        } else {
            rows = try await connection.query(
                "SELECT record FROM objects WHERE bucket = ? AND name >= ? AND name < CAST(? AS TEXT) ORDER BY name LIMIT ?",
                [.text(bucket), .text(prefix), upper, .integer(limit)])
        }
        return try rows.map { try StorageRecords.decode(StoredObject.self, $0.column("record")?.string) }
    }

    func referencedBlobs() async throws -> Set<String> {
        Set(try await connection.query("SELECT blob FROM objects").compactMap { $0.column("blob")?.string })
    }

    // MARK: Uploads

    func upload(_ id: String) async throws -> ResumableUpload? {
        try await connection.query("SELECT record FROM uploads WHERE id = ?", [.text(id)])
            .first.map { try StorageRecords.decode(ResumableUpload.self, $0.column("record")?.string) }
    }

    func put(_ upload: ResumableUpload) async throws {
        _ = try await connection.query(
            "INSERT OR REPLACE INTO uploads (id, record) VALUES (?, ?)", [.text(upload.id), .text(try StorageRecords.encode(upload))])
    }

    func deleteUpload(_ id: String) async throws {
        _ = try await connection.query("DELETE FROM uploads WHERE id = ?", [.text(id)])
    }

    func openUploads(owner: String, activeSince cutoff: Int64) async throws -> (count: Int, bytes: Int64) {
        let row = try await connection.query(
            """
            SELECT COUNT(*) AS count, COALESCE(SUM(json_extract(record, '$.received')), 0) AS bytes FROM uploads
            WHERE json_extract(record, '$.state') = 'active' AND json_extract(record, '$.owner') = ?
            AND COALESCE(json_extract(record, '$.lastActivity'), 0) >= ?
            """, [.text(owner), .integer(Int(cutoff))]
        ).first
        return (row?.column("count")?.integer ?? 0, Int64(row?.column("bytes")?.integer ?? 0))
    }

    func uploads(idleSince cutoff: Int64) async throws -> [String] {
        try await connection.query(
            "SELECT id FROM uploads WHERE COALESCE(json_extract(record, '$.lastActivity'), 0) < ?", [.integer(Int(cutoff))]
        ).compactMap { $0.column("id")?.string }
    }

    func reset() async throws {
        for table in ["objects", "uploads", "buckets"] {
            _ = try await connection.query("DELETE FROM \(table)")
        }
    }
}
