import NIOCore
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// Firebase's splitting of long realtime messages into 16384-character frames, both ways.
@Suite struct RealtimeFramingTests {
    private func texts(_ frames: [ByteBuffer]) -> [String] { frames.map { String(buffer: $0) } }

    @Test func aMessageThatFitsIsOneFrameWithoutACount() {
        let message = ByteBuffer(string: String(repeating: "a", count: 16384))
        #expect(texts(RealtimeFraming.frames(for: message)) == [String(repeating: "a", count: 16384)])
    }

    @Test func multiByteCharactersCountAsUTF16CodeUnitsNotBytes() {
        // 10,000 "é" are 20,000 bytes but 10,000 characters: one frame.
        let message = ByteBuffer(string: String(repeating: "é", count: 10000))
        #expect(RealtimeFraming.frames(for: message).count == 1)
    }

    @Test func aLongMessageIsACountFrameThenChunksOfAtMost16384Characters() {
        let text = String(repeating: "x", count: 40000)
        let frames = texts(RealtimeFraming.frames(for: ByteBuffer(string: text)))
        #expect(frames.first == "3")
        #expect(frames.dropFirst().map(\.utf16.count) == [16384, 16384, 7232])
        #expect(frames.dropFirst().joined() == text)
    }

    @Test func chunksNeverSplitASurrogatePair() {
        // The emoji would occupy UTF-16 units 16384 and 16385: it must start the second chunk.
        let text = String(repeating: "a", count: 16383) + "😀" + String(repeating: "b", count: 20)
        let frames = texts(RealtimeFraming.frames(for: ByteBuffer(string: text)))
        #expect(frames.count == 3)
        #expect(frames[1] == String(repeating: "a", count: 16383))
        #expect(frames[2] == "😀" + String(repeating: "b", count: 20))
    }

    @Test func theAssemblerJoinsCountedFramesAndIgnoresKeepalives() {
        var assembler = FrameAssembler(limit: 1 << 20)
        #expect(assembler.receive(ByteBuffer(string: "0")) == .nothing)
        #expect(assembler.receive(ByteBuffer(string: "2")) == .nothing)
        #expect(assembler.receive(ByteBuffer(string: "{\"a\":")) == .nothing)
        #expect(assembler.receive(ByteBuffer(string: "1}")) == .message(ByteBuffer(string: "{\"a\":1}")))
        #expect(assembler.receive(ByteBuffer(string: "{}")) == .message(ByteBuffer(string: "{}")))
    }

    @Test func theAssemblerReportsOversizedMessagesWithTheirBeginning() {
        var assembler = FrameAssembler(limit: 10)
        #expect(assembler.receive(ByteBuffer(string: "3")) == .nothing)
        #expect(assembler.receive(ByteBuffer(string: "{\"r\":7,")) == .nothing)
        #expect(assembler.receive(ByteBuffer(string: "\"a\":\"p\"")) == .nothing)
        #expect(assembler.receive(ByteBuffer(string: "}")) == .oversized(prefix: ByteBuffer(string: "{\"r\":7,\"a\":\"p\"")))
        // The next message is read normally.
        #expect(assembler.receive(ByteBuffer(string: "{}")) == .message(ByteBuffer(string: "{}")))
        let single = assembler.receive(ByteBuffer(string: "{\"r\":8,\"a\":\"p\"}"))
        #expect(single == .oversized(prefix: ByteBuffer(string: "{\"r\":8,\"a\":\"p\"}")))
    }

    @Test func theRequestNumberOfAnOversizedMessageIsFoundInItsBeginning() {
        let prefix = Array(#"{"t":"d","d":{"r":42,"a":"p","b":{"p":"/x","d":"xxxx"#.utf8)
        #expect(RealtimeInbound.requestNumber(inPrefixOf: prefix) == 42)
        #expect(RealtimeInbound.requestNumber(inPrefixOf: Array("garbage".utf8)) == nil)
    }
}
