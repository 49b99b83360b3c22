/// Cuts long outgoing messages into frames (protocol §3.3).
///
/// A message of at most ``maximumFrameLength`` UTF-16 code units travels as one frame. A longer
/// one is preceded by a frame holding only the number of chunks that follow. Cuts fall between
/// Unicode scalars, so no surrogate pair is split and every frame is valid UTF-8.
enum FrameSplitter {
    /// The most UTF-16 code units one frame may carry.
    static let maximumFrameLength = 16384

    /// The frames that carry `message`, in sending order.
    static func frames(for message: String) -> [String] {
        guard message.utf16.count > maximumFrameLength else { return [message] }
        let scalars = message.unicodeScalars
        var chunks: [String] = []
        var start = scalars.startIndex
        var units = 0
        var index = start
        while index != scalars.endIndex {
            let width = scalars[index].utf16.count
            if units + width > maximumFrameLength {
                chunks.append(String(scalars[start..<index]))
                start = index
                units = 0
            }
            units += width
            index = scalars.index(after: index)
        }
        chunks.append(String(scalars[start..<index]))
        return [String(chunks.count)] + chunks
    }
}
