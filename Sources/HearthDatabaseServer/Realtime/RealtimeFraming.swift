import NIOCore

/// Firebase's splitting of long realtime messages into frames (protocol §3.3): a message longer
/// than 16384 UTF-16 code units travels as a frame holding the number of chunks, then the chunks.
enum RealtimeFraming {
    /// The most UTF-16 code units one frame may carry.
    static let maximumFrameLength = 16384

    /// The frames that carry `message`: the message alone when it fits, else a count frame and
    /// chunks cut between characters, so that every frame is valid UTF-8 and no surrogate pair
    /// is split.
    static func frames(for message: ByteBuffer) -> [ByteBuffer] {
        // A UTF-8 text never has more UTF-16 code units than bytes.
        guard message.readableBytes > maximumFrameLength else { return [message] }
        let cuts = message.withUnsafeReadableBytes { bytes in
            var cuts: [Int] = []
            var units = 0
            var offset = 0
            while offset < bytes.count {
                let lead = bytes[offset]
                let (length, width) = lead < 0x80 ? (1, 1) : lead < 0xE0 ? (2, 1) : lead < 0xF0 ? (3, 1) : (4, 2)
                if units + width > maximumFrameLength {
                    cuts.append(offset)
                    units = 0
                }
                units += width
                offset += length
            }
            return cuts
        }
        guard !cuts.isEmpty else { return [message] }
        var frames = [ByteBuffer(string: String(cuts.count + 1))]
        var start = 0
        for end in cuts + [message.readableBytes] {
            frames.append(message.getSlice(at: message.readerIndex + start, length: end - start)!)
            start = end
        }
        return frames
    }
}

/// Reassembles the messages a client sends, split as ``RealtimeFraming`` describes. Confined to
/// the connection's event loop.
struct FrameAssembler {
    /// What one received frame amounts to.
    enum Output: Equatable {
        /// A whole message.
        case message(ByteBuffer)
        /// A message over the size limit; only its beginning was kept, to find its request number.
        case oversized(prefix: ByteBuffer)
        /// The client keepalive `0`, or a frame of a message still being reassembled.
        case nothing
    }

    /// The largest message accepted, in bytes.
    let limit: Int
    /// How many frames of the current message are still to come; 0 when not reassembling.
    private var remainingFrames = 0
    private var parts = ByteBuffer()
    private var oversizedPrefix: ByteBuffer?

    /// How much of an oversized message is kept.
    static let prefixLength = 256

    init(limit: Int) {
        self.limit = limit
    }

    mutating func receive(_ frame: ByteBuffer) -> Output {
        guard remainingFrames > 0 else {
            if let count = Self.frameCount(frame) {
                remainingFrames = count
                parts = ByteBuffer()
                oversizedPrefix = nil
                return .nothing
            }
            if frame.readableBytes == 1, frame.getInteger(at: frame.readerIndex, as: UInt8.self) == UInt8(ascii: "0") {
                return .nothing
            }
            return frame.readableBytes > limit ? .oversized(prefix: Self.prefix(of: frame)) : .message(frame)
        }
        remainingFrames -= 1
        if oversizedPrefix == nil, parts.readableBytes + frame.readableBytes > limit {
            var prefix = parts
            prefix.writeImmutableBuffer(frame)
            oversizedPrefix = Self.prefix(of: prefix)
            parts = ByteBuffer()
        } else if oversizedPrefix == nil {
            parts.writeImmutableBuffer(frame)
        }
        guard remainingFrames == 0 else { return .nothing }
        if let oversizedPrefix { return .oversized(prefix: oversizedPrefix) }
        return .message(parts)
    }

    /// A frame of at most six characters holding a positive decimal number announces that many
    /// frames (clients send counts as short strings).
    private static func frameCount(_ frame: ByteBuffer) -> Int? {
        guard (1...6).contains(frame.readableBytes) else { return nil }
        let digits = frame.readableBytesView
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let count = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return count > 0 ? count : nil
    }

    private static func prefix(of buffer: ByteBuffer) -> ByteBuffer {
        buffer.getSlice(at: buffer.readerIndex, length: min(prefixLength, buffer.readableBytes))!
    }
}
