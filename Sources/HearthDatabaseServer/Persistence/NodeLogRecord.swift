import Crypto

/// How a ``LogBatch`` is written in a segment of the ``NodeLog``.
///
/// A record is its payload's length (4 bytes, little-endian), the first 8 bytes of the payload's
/// SHA-256, and the payload: the namespace's name (2-byte length, UTF-8), the first sequence
/// number (8 bytes), the number of rows (4 bytes) and each row (4-byte length, UTF-8). A record
/// cut short by a crash, or whose checksum does not match, ends the segment: it was never synced
/// whole, so none of its writes was acknowledged.
enum NodeLogRecord {
    static let headerBytes = 12
    /// The largest payload a reader accepts: larger lengths are torn or corrupt headers.
    static let maximumPayloadBytes = 1 << 30

    /// Appends the record of `batch` to `bytes`.
    static func encode(_ batch: LogBatch, into bytes: inout [UInt8]) {
        var payload: [UInt8] = []
        payload.reserveCapacity(18 + batch.namespace.utf8.count + batch.rows.reduce(0) { $0 + 4 + $1.utf8.count })
        append(UInt16(batch.namespace.utf8.count), to: &payload)
        payload.append(contentsOf: batch.namespace.utf8)
        append(UInt64(bitPattern: batch.firstSequence), to: &payload)
        append(UInt32(batch.rows.count), to: &payload)
        for row in batch.rows {
            append(UInt32(row.utf8.count), to: &payload)
            payload.append(contentsOf: row.utf8)
        }
        append(UInt32(payload.count), to: &bytes)
        bytes.append(contentsOf: checksum(payload[...]))
        bytes.append(contentsOf: payload)
    }

    /// The records at the start of `bytes`, in order, and how many bytes they take: reading
    /// stops at the end, or at the first record cut short or corrupt.
    static func decodeAll(_ bytes: [UInt8]) -> (batches: [LogBatch], validBytes: Int) {
        var batches: [LogBatch] = []
        var offset = 0
        while let (batch, next) = decode(bytes, at: offset) {
            batches.append(batch)
            offset = next
        }
        return (batches, offset)
    }

    /// The record at `offset`, and the offset after it.
    private static func decode(_ bytes: [UInt8], at offset: Int) -> (LogBatch, Int)? {
        var reader = Reader(bytes: bytes, offset: offset)
        guard let length = reader.integer(UInt32.self).map(Int.init), length <= maximumPayloadBytes,
            let sum = reader.bytes(8), let payloadStart = Optional(reader.offset), reader.bytes(length) != nil,
            checksum(bytes[payloadStart..<payloadStart + length]).elementsEqual(sum)
        else { return nil }
        let end = reader.offset
        reader.offset = payloadStart
        guard let nameLength = reader.integer(UInt16.self), let name = reader.string(Int(nameLength)),
            let first = reader.integer(UInt64.self), let count = reader.integer(UInt32.self)
        else { return nil }
        var rows: [String] = []
        rows.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let rowLength = reader.integer(UInt32.self), let row = reader.string(Int(rowLength)) else { return nil }
            rows.append(row)
        }
        guard reader.offset == end else { return nil }
        return (LogBatch(namespace: name, firstSequence: Int64(bitPattern: first), rows: rows), end)
    }

    private static func checksum(_ payload: ArraySlice<UInt8>) -> [UInt8] {
        Array(SHA256.hash(data: payload).prefix(8))
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Reads little-endian integers and byte runs from a buffer, failing past its end.
    private struct Reader {
        let bytes: [UInt8]
        var offset: Int

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
            guard let run = bytes(MemoryLayout<Integer>.size) else { return nil }
            return run.reversed().reduce(0) { $0 << 8 | Integer($1) }
        }

        mutating func string(_ count: Int) -> String? {
            bytes(count).map { String(decoding: $0, as: UTF8.self) }
        }
    }
}
