import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reassembles the messages a long-polling client sends in the query strings of its polls
/// (protocol §3.9): each message is its JSON in web-safe base64, cut into segments numbered
/// from 0 across the whole session, each carrying the segment count of its message
/// (`seg<i>=<number>&ts<i>=<count>&d<i>=<chunk>`). Polls may arrive out of order; messages
/// come out in order, each once all its segments are in.
struct SegmentAssembler {
    /// A segment that cannot be part of a valid stream.
    struct InvalidSegment: Error {}

    /// The most segments waiting for the ones before them.
    static let maximumPending = 4_096

    private var nextSegment = 0
    private var pending: [Int: (count: Int, chunk: Substring)] = [:]

    /// Adds one segment; returns the messages it completed, in order. Throws, changing
    /// nothing, when the segment is invalid or completes a message that does not decode.
    mutating func add(number: Int, count: Int, chunk: Substring) throws(InvalidSegment) -> [ByteBuffer] {
        guard number >= nextSegment, count >= 1, pending[number] == nil, pending.count < Self.maximumPending else {
            throw InvalidSegment()
        }
        var pending = self.pending
        var nextSegment = self.nextSegment
        pending[number] = (count, chunk)
        var messages: [ByteBuffer] = []
        while let first = pending[nextSegment] {
            let numbers = nextSegment..<(nextSegment + first.count)
            guard numbers.allSatisfy({ pending[$0] != nil }) else { break }
            let text = numbers.map { pending.removeValue(forKey: $0)!.chunk }.joined()
            guard let bytes = Self.decodeWebSafeBase64(text) else { throw InvalidSegment() }
            messages.append(ByteBuffer(bytes: bytes))
            nextSegment = numbers.upperBound
        }
        self.pending = pending
        self.nextSegment = nextSegment
        return messages
    }

    /// Decodes base64 written with `-`, `_` and `.` in place of `+`, `/` and `=`, as Firebase's
    /// web client encodes it (the standard alphabet is accepted too).
    private static func decodeWebSafeBase64(_ text: String) -> [UInt8]? {
        let standard = String(
            text.map { character -> Character in
                switch character {
                case "-": "+"
                case "_": "/"
                case ".": "="
                default: character
                }
            })
        return Data(base64Encoded: standard).map { Array($0) }
    }
}
