import Testing

@testable import HearthConnection

@Suite struct FramingTests {
    @Test func shortMessageTravelsAsOneFrame() {
        let message = String(repeating: "a", count: FrameSplitter.maximumFrameLength)
        #expect(FrameSplitter.frames(for: message) == [message])
    }

    @Test func longMessageIsPrecededByItsFrameCount() {
        let message = String(repeating: "x", count: 2 * FrameSplitter.maximumFrameLength + 5)
        let frames = FrameSplitter.frames(for: message)
        #expect(frames.count == 4)
        #expect(frames[0] == "3")
        #expect(frames[1].utf16.count == FrameSplitter.maximumFrameLength)
        #expect(frames[3] == "xxxxx")
        #expect(frames.dropFirst().joined() == message)
    }

    @Test func cutsNeverSplitASurrogatePair() {
        // One ASCII character first, so that every emoji straddles an even boundary.
        let message = "a" + String(repeating: "🐵", count: FrameSplitter.maximumFrameLength)
        let frames = FrameSplitter.frames(for: message)
        #expect(frames.dropFirst().allSatisfy { $0.utf16.count <= FrameSplitter.maximumFrameLength })
        #expect(frames.dropFirst().joined() == message)
    }

    @Test func assemblerJoinsSplitMessages() {
        var assembler = FrameAssembler()
        let message = #"{"t":"d","d":{"a":"d","b":{"p":"a","d":""# + String(repeating: "é", count: 40_000) + #""}}}"#
        var received: [String] = []
        for frame in FrameSplitter.frames(for: message) {
            if let whole = assembler.receive(frame) { received.append(whole) }
        }
        #expect(received == [message])
    }

    @Test func assemblerPassesWholeMessagesAndIgnoresKeepalives() {
        var assembler = FrameAssembler()
        #expect(assembler.receive("0") == nil)
        #expect(assembler.receive(#"{"t":"c"}"#) == #"{"t":"c"}"#)
        #expect(assembler.receive("2") == nil)
        #expect(assembler.receive("12") == nil)
        #expect(assembler.receive("34") == "1234")
        // A number of more than six digits is not a frame count.
        #expect(assembler.receive("1234567") == "1234567")
    }
}
