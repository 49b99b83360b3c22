import HearthPostgres
import NIOCore
import PostgresNIO

/// The bytes of objects and uploads in PostgreSQL, beside their metadata
/// (``PostgresStorageStore``), in pages of ``pageSize`` bytes:
/// - `hearth_storage_blobs`: one row per blob, with when it was made and its size (`NULL` while
///   it is being written);
/// - `hearth_storage_blob_pages`: a blob's bytes, page by page;
/// - `hearth_storage_upload_pages`: the bytes a resumable upload received so far, page by page.
///
/// A blob's row is made before its pages and its size set after them, so that a blob a crash
/// left half written is found, and removed once old enough, like any blob no object names.
/// Every statement commits on its own, durably; moving bytes between an upload and a blob is
/// one statement.
struct PostgresBlobStore: BlobStore {
    let database: ClusterDatabase

    /// The bytes one row holds.
    static let pageSize = 256 << 10
    /// How many pages one query reads.
    private static let pagesPerRead = 8

    static let statements = [
        "CREATE TABLE IF NOT EXISTS hearth_storage_blobs (id text PRIMARY KEY, made timestamptz NOT NULL DEFAULT now(), size bigint)",
        """
        CREATE TABLE IF NOT EXISTS hearth_storage_blob_pages (blob text NOT NULL, page int NOT NULL, data bytea NOT NULL,
          PRIMARY KEY (blob, page))
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_storage_upload_pages (upload text NOT NULL, page int NOT NULL, data bytea NOT NULL,
          PRIMARY KEY (upload, page))
        """,
        // Objects are often compressed already: PostgreSQL would spend time compressing them again.
        "ALTER TABLE hearth_storage_blob_pages ALTER COLUMN data SET STORAGE EXTERNAL",
        "ALTER TABLE hearth_storage_upload_pages ALTER COLUMN data SET STORAGE EXTERNAL",
    ]

    func write<Body: AsyncSequence>(_ body: Body, limit: Int64) async throws -> (id: String, digest: ContentDigest)
    where Body.Element == ByteBuffer {
        let id = BlobID.make()
        _ = try await database.query("INSERT INTO hearth_storage_blobs (id) VALUES (\(id))")
        do {
            var digest = ContentDigest()
            var pending = ByteBuffer()
            var page: Int32 = 0
            for try await buffer in body {
                digest.update(buffer)
                if digest.size > limit { throw StorageError.objectTooLarge(limit: limit) }
                pending.writeImmutableBuffer(buffer)
                while pending.readableBytes >= Self.pageSize, let full = pending.readSlice(length: Self.pageSize) {
                    try await insertPage(full, number: page, ofBlob: id)
                    page += 1
                }
                pending.discardReadBytes()
            }
            if pending.readableBytes > 0 { try await insertPage(pending, number: page, ofBlob: id) }
            _ = try await database.query("UPDATE hearth_storage_blobs SET size = \(digest.size) WHERE id = \(id)")
            return (id, digest)
        } catch {
            await removeBlob(id)
            throw error
        }
    }

    private func insertPage(_ data: ByteBuffer, number: Int32, ofBlob id: String) async throws {
        _ = try await database.query("INSERT INTO hearth_storage_blob_pages (blob, page, data) VALUES (\(id), \(number), \(data))")
    }

    func read(blob id: String, in range: Range<Int64>, _ consume: (ByteBuffer) async throws -> Void) async throws {
        guard !range.isEmpty else { return }
        let size = Int64(Self.pageSize)
        let first = range.lowerBound / size
        let last = (range.upperBound - 1) / size
        var next = first
        while next <= last {
            let end = min(last, next + Int64(Self.pagesPerRead) - 1)
            let rows = try await database.query(
                """
                SELECT page, data FROM hearth_storage_blob_pages WHERE blob = \(id)
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

    func copy(blob source: String, to id: String) async throws {
        _ = try await database.query(
            """
            WITH made AS (
              INSERT INTO hearth_storage_blobs (id, size) SELECT \(id), size FROM hearth_storage_blobs WHERE id = \(source)
            )
            INSERT INTO hearth_storage_blob_pages (blob, page, data)
            SELECT \(id), page, data FROM hearth_storage_blob_pages WHERE blob = \(source)
            """)
    }

    func adopt(upload uploadID: String) async throws -> String {
        let id = BlobID.make()
        _ = try await database.query(
            """
            WITH moved AS (DELETE FROM hearth_storage_upload_pages WHERE upload = \(uploadID) RETURNING page, data),
            copied AS (
              INSERT INTO hearth_storage_blob_pages (blob, page, data) SELECT \(id), page, data FROM moved
              RETURNING length(data) AS bytes
            )
            INSERT INTO hearth_storage_blobs (id, size) SELECT \(id), COALESCE(SUM(bytes), 0) FROM copied
            """)
        return id
    }

    func restore(blob id: String, toUpload uploadID: String) async throws {
        _ = try await database.query(
            """
            WITH gone AS (DELETE FROM hearth_storage_blobs WHERE id = \(id)),
            moved AS (DELETE FROM hearth_storage_blob_pages WHERE blob = \(id) RETURNING page, data)
            INSERT INTO hearth_storage_upload_pages (upload, page, data) SELECT \(uploadID), page, data FROM moved
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
        var padded = ByteBuffer(repeating: 0, count: Int(position))
        padded.writeImmutableBuffer(bytes)
        _ = try await database.query(
            """
            INSERT INTO hearth_storage_upload_pages AS p (upload, page, data) VALUES (\(uploadID), \(page), \(padded))
            ON CONFLICT (upload, page) DO UPDATE SET data = CASE
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
        let last = Int32((size - 1) / Int64(Self.pageSize))
        let kept = Int32(size - Int64(last) * Int64(Self.pageSize))
        let rows = try await database.query(
            """
            WITH cut AS (DELETE FROM hearth_storage_upload_pages WHERE upload = \(uploadID) AND page > \(last)),
            shortened AS (
              UPDATE hearth_storage_upload_pages SET data = substring(data FROM 1 FOR \(kept))
              WHERE upload = \(uploadID) AND page = \(last) RETURNING length(data) AS bytes
            )
            SELECT (SELECT COUNT(*) FROM hearth_storage_upload_pages WHERE upload = \(uploadID) AND page < \(last)
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
                SELECT data FROM hearth_storage_upload_pages WHERE upload = \(uploadID) AND page >= \(next)
                ORDER BY page LIMIT \(Int32(Self.pagesPerRead))
                """)
            for row in rows { digest.update(try row.decode(ByteBuffer.self)) }
            guard rows.count == Self.pagesPerRead else { return digest }
            next += Int32(Self.pagesPerRead)
        }
    }

    func removeBlob(_ id: String) async {
        _ = try? await database.query(
            """
            WITH gone AS (DELETE FROM hearth_storage_blobs WHERE id = \(id))
            DELETE FROM hearth_storage_blob_pages WHERE blob = \(id)
            """)
    }

    func removeUpload(_ id: String) async {
        _ = try? await database.query("DELETE FROM hearth_storage_upload_pages WHERE upload = \(id)")
    }

    func removeEverything() async throws {
        _ = try await database.query("TRUNCATE hearth_storage_blobs, hearth_storage_blob_pages, hearth_storage_upload_pages")
    }

    func removeOrphans(keeping referenced: Set<String>, unnamedFor: Duration) async throws -> Int {
        let seconds = Double(unnamedFor.components.seconds)
        let made = try await database.query(
            "SELECT id FROM hearth_storage_blobs WHERE made < now() - make_interval(secs => \(seconds))")
        var removed = 0
        for row in made {
            let id = try row.decode(String.self)
            guard !referenced.contains(id) else { continue }
            await removeBlob(id)
            removed += 1
        }
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
