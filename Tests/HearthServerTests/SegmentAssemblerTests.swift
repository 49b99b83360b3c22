import Foundation
import NIOCore
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// Messages a long-polling client sends in numbered segments come out whole and in order.
@Suite struct SegmentAssemblerTests {
    /// `text` in web-safe base64, cut into `parts` chunks.
    private func chunks(_ text: String, parts: Int) -> [Substring] {
        let encoded = Substring(
            String(decoding: Array(text.utf8), as: UTF8.self).data(using: .utf8)!.base64EncodedString()
                .map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 == "=" ? "." : $0 })
        let size = (encoded.count + parts - 1) / parts
        return stride(from: 0, to: encoded.count, by: size).map { start in
            let from = encoded.index(encoded.startIndex, offsetBy: start)
            return encoded[from..<encoded.index(from, offsetBy: min(size, encoded.count - start))]
        }
    }

    @Test func messagesComeOutInOrderWhateverOrderTheirSegmentsArriveIn() throws {
        var assembler = SegmentAssembler()
        let first = chunks(#"{"t":"d","d":{"r":1}}"#, parts: 3)
        let second = chunks(#"{"t":"c","d":{"t":"p","d":{}}}"#, parts: 1)
        #expect(try assembler.add(number: 3, count: 1, chunk: second[0]).isEmpty)
        #expect(try assembler.add(number: 2, count: 3, chunk: first[2]).isEmpty)
        #expect(try assembler.add(number: 0, count: 3, chunk: first[0]).isEmpty)
        let messages = try assembler.add(number: 1, count: 3, chunk: first[1]).map { String(buffer: $0) }
        #expect(messages == [#"{"t":"d","d":{"r":1}}"#, #"{"t":"c","d":{"t":"p","d":{}}}"#])
    }

    @Test func repeatedStaleOrUndecodableSegmentsAreRefused() throws {
        var assembler = SegmentAssembler()
        let ping = chunks(#"{"t":"c","d":{"t":"p","d":{}}}"#, parts: 1)[0]
        #expect(try assembler.add(number: 0, count: 1, chunk: ping).count == 1)
        #expect(throws: SegmentAssembler.InvalidSegment.self) { try assembler.add(number: 0, count: 1, chunk: ping) }
        #expect(throws: SegmentAssembler.InvalidSegment.self) { try assembler.add(number: 1, count: 0, chunk: ping) }
        #expect(try assembler.add(number: 2, count: 1, chunk: ping).isEmpty)
        #expect(throws: SegmentAssembler.InvalidSegment.self) { try assembler.add(number: 2, count: 1, chunk: ping) }
        #expect(throws: SegmentAssembler.InvalidSegment.self) { try assembler.add(number: 1, count: 1, chunk: "%%%") }
        // The undecodable segment changed nothing: a good one in its place completes both.
        #expect(try assembler.add(number: 1, count: 1, chunk: ping).count == 2)
    }
}
