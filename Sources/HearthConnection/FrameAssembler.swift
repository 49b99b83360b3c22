/// Reassembles the messages a server splits into frames (protocol §3.3).
///
/// When not reassembling, a frame of at most six digits holding a positive number N announces
/// that the next N frames are the pieces of one message; any other frame is a whole message.
/// A bare `0` (a keepalive) is neither and is ignored.
struct FrameAssembler {
    /// How many frames of the current message are still to come; 0 when not reassembling.
    private var remainingFrames = 0
    private var pieces: [String] = []

    /// Takes one received frame; returns a whole message when this frame completes one.
    mutating func receive(_ frame: String) -> String? {
        guard remainingFrames == 0 else {
            pieces.append(frame)
            remainingFrames -= 1
            guard remainingFrames == 0 else { return nil }
            defer { pieces = [] }
            return pieces.joined()
        }
        if let count = Self.frameCount(frame) {
            remainingFrames = count
            return nil
        }
        return frame == ClientMessage.keepalive ? nil : frame
    }

    private static func frameCount(_ frame: String) -> Int? {
        guard (1...6).contains(frame.utf8.count), frame.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let count = Int(frame), count > 0
        else { return nil }
        return count
    }
}
