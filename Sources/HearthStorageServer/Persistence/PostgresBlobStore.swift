import HearthPostgres
import NIOCore
import PostgresNIO

/// The bytes of objects and uploads in PostgreSQL, beside their metadata
/// (``PostgresStorageStore``), in pages of ``pageSize`` bytes:
/// - `hearth_storage_blobs`: one row per blob, with its size (`NULL` while it is being written)
///   and when it was last touched: made, given a page a minute or more after the last touch,
///   completed;
/// - `hearth_storage_pages`: the bytes, page by page, of a blob (owner: its id) or of a
///   resumable upload in progress (owner: `upload:` and its id).
///
/// A blob's row is made before its pages and completed after them; a blob no object names and
/// untouched for long (a crash left it half written) is removed like any orphan. Every statement
/// commits on its own, durably. An upload becomes a blob by giving its pages another owner: the
/// bytes themselves are not copied, however large.
struct PostgresBlobStore: BlobStore {
    let database: ClusterDatabase

    /// The bytes one row holds.
    static let pageSize = 256 << 10
    /// How many pages one query reads or copies.
    private static let pagesPerQuery = 8
    /// How long a blob's writer goes at most without touching its row, while pages come (a
    /// page comes within minutes at the slowest body rate a client may send).
    private static let touchInterval: Duration = .seconds(60)

    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS hearth_storage_blobs (id text PRIMARY KEY, touched timestamptz NOT NULL DEFAULT now(),
          size bigint)
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_storage_pages (owner text NOT NULL, page int NOT NULL, data bytea NOT NULL,
          PRIMARY KEY (owner, page))
        """,
        // Objects are often compressed already: PostgreSQL would spend time compressing them
        // again. Changed once: the change locks the table.
        """
        DO $$ BEGIN
          IF (SELECT attstorage FROM pg_attribute WHERE attrelid = 'hearth_storage_pages'::regclass AND attname = 'data') <> 'e'
          THEN ALTER TABLE hearth_storage_pages ALTER COLUMN data SET STORAGE EXTERNAL;
          END IF;
        END $$
        """,
    ]

    /// The owner of an upload's pages.
    private static func owner(ofUpload id: String) -> String { "upload:\(id)" }

    func write<Body: AsyncSequence>(_ body: Body, limit: Int64) async throws -> (id: String, digest: ContentDigest)
    where Body.Element == ByteBuffer {
        let id = BlobID.make()
        _ = try await database.query("INSERT INTO hearth_storage_blobs (id) VALUES (\(id))")
        do {
            var digest = ContentDigest()
            var pending = ByteBuffer()
            var page: Int32 = 0
            let clock = ContinuousClock()
            var touched = clock.now
            for try await buffer in body {
                digest.update(buffer)
                if digest.size > limit { throw StorageError.objectTooLarge(limit: limit) }
                pending.writeImmutableBuffer(buffer)
                while pending.readableBytes >= Self.pageSize, let full = pending.readSlice(length: Self.pageSize) {
                    try await insert(full, page: page, owner: id)
                    page += 1
                    // A long upload stays young: no starting node takes it for an orphan.
                    if clock.now - touched >= Self.touchInterval {
                        try await touch(id)
                        touched = clock.now
                    }
                }
                pending.discardReadBytes()
            }
            if pending.readableBytes > 0 { try await insert(pending, page: page, owner: id) }
            let completed = try await database.query(
                "UPDATE hearth_storage_blobs SET size = \(digest.size), touched = now() WHERE id = \(id) RETURNING 1")
            // Its row gone meanwhile (taken for an orphan), the blob may have lost pages.
            guard !completed.isEmpty else { throw BlobStoreError.missingBytes(id) }
            return (id, digest)
        } catch {
            await removeBlob(id)
            throw error
        }
    }

    /// Marks blob `id` as being written now; throws when its row is gone.
    private func touch(_ id: String) async throws {
        let touched = try await database.query("UPDATE hearth_storage_blobs SET touched = now() WHERE id = \(id) RETURNING 1")
        guard !touched.isEmpty else { throw BlobStoreError.missingBytes(id) }
    }

    private func insert(_ data: ByteBuffer, page: Int32, owner: String) async throws {
        _ = try await database.query("INSERT INTO hearth_storage_pages (owner, page, data) VALUES (\(owner), \(page), \(data))")
    }

    func read(blob id: String, in range: Range<Int64>, _ consume: (ByteBuffer) async throws -> Void) async throws {
        guard !range.isEmpty else { return }
        let size = Int64(Self.pageSize)
        let first = range.lowerBound / size
        let last = (range.upperBound - 1) / size
        var next = first
        while next <= last {
            let end = min(last, next + Int64(Self.pagesPerQuery) - 1)
            let rows = try await database.query(
                """
                SELECT page, data FROM hearth_storage_pages WHERE owner = \(id)
                AND page BETWEEN \(Int32(next)) AND \(Int32(end)) ORDER BY page
                """)
            guard rows.count == end - next + 1 else { throw BlobStoreError.missingBytes(id) }
            for row in rows {
                let (number, data) = try row.decode((Int32, ByteBuffer).self)
                let start = Int64(number) * size
                let from = Int(max(range.lowerBound - start, 0))
                let to = Int(min(range.upperBound - start, Int64(data.readableBytes)))
                guard from < to, let slice = data.getSlice(at: data.readerIndex + from, length: to - from) else {
                    throw BlobStoreError.missingBytes(id)
                }
                try await consume(slice)
            }
            next = end + 1
        }
    }

    /// Copies the pages a few at a time, so that no statement runs long however large the blob.
    func copy(blob source: String, to id: String) async throws {
        let made = try await database.query(
            "INSERT INTO hearth_storage_blobs (id, size) SELECT \(id), size FROM hearth_storage_blobs WHERE id = \(source) RETURNING size")
        guard case let size?? = try made.first?.decode(Int64?.self) else { throw BlobStoreError.missingBytes(source) }
        do {
            let pages = Int32((size + Int64(Self.pageSize) - 1) / Int64(Self.pageSize))
            var next: Int32 = 0
            while next < pages {
                let end = min(pages, next + Int32(Self.pagesPerQuery))
                let copied = try await database.query(
                    """
                    INSERT INTO hearth_storage_pages (owner, page, data)
                    SELECT \(id), page, data FROM hearth_storage_pages WHERE owner = \(source) AND page >= \(next) AND page < \(end)
                    RETURNING page
                    """)
                guard copied.count == end - next else { throw BlobStoreError.missingBytes(source) }
                next = end
                try await touch(id)
            }
        } catch {
            await removeBlob(id)
            throw error
        }
    }

    func adopt(upload uploadID: String) async throws -> String {
        let id = BlobID.make()
        _ = try await database.query(
            """
            WITH moved AS (
              UPDATE hearth_storage_pages SET owner = \(id) WHERE owner = \(Self.owner(ofUpload: uploadID))
              RETURNING length(data) AS bytes
            )
            INSERT INTO hearth_storage_blobs (id, size) SELECT \(id), COALESCE(SUM(bytes), 0) FROM moved
            """)
        return id
    }

    func restore(blob id: String, toUpload uploadID: String) async throws {
        // Pages a request still streaming wrote after the upload was adopted: the blob's take
        // their place.
        _ = try await database.query("DELETE FROM hearth_storage_pages WHERE owner = \(Self.owner(ofUpload: uploadID))")
        _ = try await database.query(
            """
            WITH gone AS (DELETE FROM hearth_storage_blobs WHERE id = \(id))
            UPDATE hearth_storage_pages SET owner = \(Self.owner(ofUpload: uploadID)) WHERE owner = \(id)
            """)
    }

    func append<Body: AsyncSequence>(
        _ body: Body, toUpload uploadID: String, at offset: Int64, limit: Int64, refusal: StorageError
    ) async throws -> Int64
    where Body.Element == ByteBuffer {
        let size = Int64(Self.pageSize)
        var pending = ByteBuffer()
        var pendingStart = offset
        var position = offset
        for try await buffer in body {
            position += Int64(buffer.readableBytes)
            if position > limit { throw refusal }
            pending.writeImmutableBuffer(buffer)
            // Each page the bytes reach the end of is written as soon as it is.
            var pageEnd = (pendingStart / size + 1) * size
            while pendingStart + Int64(pending.readableBytes) >= pageEnd,
                let piece = pending.readSlice(length: Int(pageEnd - pendingStart))
            {
                try await write(piece, at: pendingStart, toUpload: uploadID)
                pendingStart = pageEnd
                pageEnd += size
            }
            pending.discardReadBytes()
        }
        if pending.readableBytes > 0 { try await write(pending, at: pendingStart, toUpload: uploadID) }
        return position
    }

    /// Writes `bytes`, which lie within one page, at byte `start` of upload `uploadID`: the page
    /// keeps its bytes before and after them, and a gap before them (a page not written that
    /// far yet) is zeros, which the upload's own bytes replace when they come.
    private func write(_ bytes: ByteBuffer, at start: Int64, toUpload uploadID: String) async throws {
        let page = Int32(start / Int64(Self.pageSize))
        let position = Int32(start % Int64(Self.pageSize))
        _ = try await database.query(
            """
            INSERT INTO hearth_storage_pages AS p (owner, page, data)
            VALUES (\(Self.owner(ofUpload: uploadID)), \(page), decode(repeat('00', \(position)), 'hex') || \(bytes))
            ON CONFLICT (owner, page) DO UPDATE SET data = CASE
              WHEN length(p.data) >= \(position) THEN overlay(p.data PLACING substring(EXCLUDED.data FROM \(position) + 1) FROM \(position) + 1)
              ELSE p.data || substring(EXCLUDED.data FROM length(p.data) + 1)
            END
            """)
    }

    func truncate(upload uploadID: String, to size: Int64) async throws {
        guard size > 0 else {
            await removeUpload(uploadID)
            return
        }
        let owner = Self.owner(ofUpload: uploadID)
        let last = Int32((size - 1) / Int64(Self.pageSize))
        let kept = Int32(size - Int64(last) * Int64(Self.pageSize))
        let rows = try await database.query(
            """
            WITH cut AS (DELETE FROM hearth_storage_pages WHERE owner = \(owner) AND page > \(last)),
            shortened AS (
              UPDATE hearth_storage_pages SET data = substring(data FROM 1 FOR \(kept))
              WHERE owner = \(owner) AND page = \(last) RETURNING length(data) AS bytes
            )
            SELECT (SELECT COUNT(*) FROM hearth_storage_pages WHERE owner = \(owner) AND page < \(last)
                AND length(data) = \(Int32(Self.pageSize))),
              (SELECT COALESCE(SUM(bytes), 0) FROM shortened)::int
            """)
        guard let (full, lastBytes) = try rows.first?.decode((Int64, Int32).self), full == Int64(last), lastBytes == kept
        else { throw BlobStoreError.missingBytes(uploadID) }
    }

    func digest(ofUpload uploadID: String) async throws -> ContentDigest {
        var digest = ContentDigest()
        var next: Int32 = 0
        while true {
            let rows = try await database.query(
                """
                SELECT data FROM hearth_storage_pages WHERE owner = \(Self.owner(ofUpload: uploadID)) AND page >= \(next)
                ORDER BY page LIMIT \(Int32(Self.pagesPerQuery))
                """)
            for row in rows { digest.update(try row.decode(ByteBuffer.self)) }
            guard rows.count == Self.pagesPerQuery else { return digest }
            next += Int32(Self.pagesPerQuery)
        }
    }

    func removeBlob(_ id: String) async {
        _ = try? await database.query(
            """
            WITH gone AS (DELETE FROM hearth_storage_blobs WHERE id = \(id))
            DELETE FROM hearth_storage_pages WHERE owner = \(id)
            """)
    }

    func removeUpload(_ id: String) async {
        _ = try? await database.query("DELETE FROM hearth_storage_pages WHERE owner = \(Self.owner(ofUpload: id))")
    }

    func removeEverything() async throws {
        _ = try await database.query("TRUNCATE hearth_storage_blobs, hearth_storage_pages")
    }

    /// Also removes the pages of uploads that no longer exist (their removal failed), and of
    /// blobs without a row: a pass over every page's key, which a large store may not finish
    /// within a statement's time; it is then left for the next start.
    func removeOrphans(keeping referenced: Set<String>, unnamedFor: Duration) async throws -> Int {
        let seconds = Double(unnamedFor.components.seconds)
        let untouched = try await database.query(
            "SELECT id FROM hearth_storage_blobs WHERE touched < now() - make_interval(secs => \(seconds))")
        var removed = 0
        for row in untouched {
            let id = try row.decode(String.self)
            guard !referenced.contains(id) else { continue }
            await removeBlob(id)
            removed += 1
        }
        _ = try? await database.query(
            """
            DELETE FROM hearth_storage_pages p WHERE CASE
              WHEN p.owner LIKE 'upload:%' THEN NOT EXISTS (SELECT 1 FROM hearth_storage_uploads u WHERE 'upload:' || u.id = p.owner)
              ELSE NOT EXISTS (SELECT 1 FROM hearth_storage_blobs b WHERE b.id = p.owner)
            END
            """)
        return removed
    }
}

/// Why a blob or upload could not be read.
enum BlobStoreError: Error, CustomStringConvertible {
    /// Bytes acknowledged before are missing (a blob or upload removed, or cut short).
    case missingBytes(String)

    var description: String {
        switch self {
        case .missingBytes(let id): "bytes of \(id) are missing"
        }
    }
}
