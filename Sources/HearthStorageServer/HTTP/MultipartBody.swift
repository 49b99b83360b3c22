import NIOCore

/// A `multipart/related` upload body (spec storage-api §4.3, §9.2) read as it streams: the
/// metadata part is collected (it is small), the data part is passed on chunk by chunk up to the
/// closing delimiter, so that no object is held in memory.
struct MultipartBody<Base: AsyncSequence> where Base.Element == ByteBuffer {
    /// The first part's bytes (the metadata JSON).
    let metadata: [UInt8]
    /// The data part's own `Content-Type`, if it has one.
    let dataContentType: String?
    /// The data part's bytes; iterate once.
    let data: DataPart

    /// The largest metadata part accepted.
    static var metadataLimit: Int { 1 << 20 }

    /// Reads up to the start of the data part; `contentType` is the request's header.
    static func read(_ body: Base, contentType: String?) async throws -> MultipartBody {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/related"),
            let boundary = boundary(in: contentType)
        else { throw StorageError.badRequest("Bad content type. \(contentType ?? "")") }
        var iterator = body.makeAsyncIterator()
        var buffered = ByteBuffer()
        let opening = Array("--\(boundary)".utf8)
        let delimiter = Array("\r\n--\(boundary)".utf8)
        // The first part: its headers, then everything up to the next delimiter.
        let firstPart = try await readThrough(delimiter, from: &iterator, buffered: &buffered)
        guard firstPart.starts(with: opening) else { throw StorageError.badRequest("Bad content type. \(contentType)") }
        let (_, metadata) = try parsePart(Array(firstPart.dropFirst(opening.count)))
        // The data part's headers: after the delimiter's line break, up to a blank line.
        let headers = try await readThrough(Array("\r\n\r\n".utf8), from: &iterator, buffered: &buffered)
        let (dataContentType, _) = try parsePart(headers + Array("\r\n\r\n".utf8))
        return MultipartBody(
            metadata: metadata, dataContentType: dataContentType,
            data: DataPart(iterator: iterator, buffered: buffered, delimiter: delimiter))
    }

    /// The `boundary=` parameter, without one pair of quotes.
    private static func boundary(in contentType: String) -> String? {
        guard let range = contentType.range(of: "boundary=", options: .caseInsensitive) else { return nil }
        var value = contentType[range.upperBound...].prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        return value.isEmpty ? nil : value
    }

    /// A part after its delimiter: a line break, header lines (the first a `Content-Type`), a
    /// blank line, then the body. Returns the content type and the body.
    private static func parsePart(_ bytes: [UInt8]) throws -> (contentType: String?, body: [UInt8]) {
        let text = bytes
        guard let headerEnd = text.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw StorageError.badRequest("Failed to parse multipart body: a part has no blank line after its headers.")
        }
        let headerLines = String(decoding: text[..<headerEnd.lowerBound], as: UTF8.self)
            .split(separator: "\r\n", omittingEmptySubsequences: true)
        guard let first = headerLines.first, first.lowercased().hasPrefix("content-type:") else {
            throw StorageError.badRequest("Failed to parse multipart body: a part does not start with a Content-Type header.")
        }
        let contentType = first.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
        return (contentType, Array(text[headerEnd.upperBound...]))
    }

    /// Reads until `marker` appears; returns the bytes before it and leaves those after it
    /// buffered.
    private static func readThrough(_ marker: [UInt8], from iterator: inout Base.AsyncIterator, buffered: inout ByteBuffer)
        async throws -> [UInt8]
    {
        while true {
            let bytes = buffered.readableBytesView
            if let range = bytes.firstRange(of: marker) {
                let before = Array(bytes[..<range.lowerBound])
                buffered.moveReaderIndex(to: range.upperBound)
                return before
            }
            guard buffered.readableBytes <= metadataLimit else {
                throw StorageError.badRequest("Failed to parse multipart body: the metadata part is too large.")
            }
            guard var next = try await iterator.next() else {
                throw StorageError.badRequest("Failed to parse multipart body: it ends before its closing delimiter.")
            }
            buffered.writeBuffer(&next)
        }
    }

    /// The data part as a sequence of chunks ending before the closing delimiter.
    struct DataPart: AsyncSequence {
        typealias Element = ByteBuffer
        var iterator: Base.AsyncIterator
        var buffered: ByteBuffer
        let delimiter: [UInt8]

        func makeAsyncIterator() -> Iterator { Iterator(base: iterator, window: buffered, delimiter: delimiter) }

        struct Iterator: AsyncIteratorProtocol {
            var base: Base.AsyncIterator
            /// Bytes read but not yet passed on: always kept long enough to hold a delimiter
            /// that straddles two chunks.
            var window: ByteBuffer
            let delimiter: [UInt8]
            var finished = false
            /// How far into ``window`` the delimiter has been looked for.
            var scanned = 0

            mutating func next() async throws -> ByteBuffer? {
                while !finished {
                    if let end = Self.firstIndex(of: delimiter, in: window, from: scanned) {
                        finished = true
                        return window.readSlice(length: end)
                    }
                    // No delimiter starts before this offset; later searches resume there.
                    scanned = Swift.max(0, window.readableBytes - delimiter.count + 1)
                    // Once enough has gathered, what cannot hold the start of the delimiter is
                    // handed on; only bytes already searched are (a new chunk is searched first).
                    let safe = window.readableBytes - delimiter.count
                    if safe >= 64 * 1024, let slice = window.readSlice(length: safe) {
                        window.discardReadBytes()
                        scanned = 0
                        return slice
                    }
                    guard var chunk = try await base.next() else {
                        throw StorageError.badRequest("Failed to parse multipart body: it ends before its closing delimiter.")
                    }
                    window.writeBuffer(&chunk)
                }
                return nil
            }

            /// The offset of `pattern` in `buffer`'s readable bytes, looking from `start` on.
            private static func firstIndex(of pattern: [UInt8], in buffer: ByteBuffer, from start: Int) -> Int? {
                buffer.withUnsafeReadableBytes { bytes -> Int? in
                    guard bytes.count >= pattern.count, let first = pattern.first else { return nil }
                    var index = start
                    let last = bytes.count - pattern.count
                    while index <= last {
                        if bytes[index] == first {
                            var matched = 1
                            while matched < pattern.count && bytes[index + matched] == pattern[matched] { matched += 1 }
                            if matched == pattern.count { return index }
                        }
                        index += 1
                    }
                    return nil
                }
            }
        }
    }
}
