import HearthCore
import Testing

@Suite struct PushIDTests {
    @Test func timestampPrefixes() {
        func prefix(_ timestamp: Int64) -> String { String(decoding: PushIDGenerator.timestampPrefix(timestamp), as: UTF8.self) }
        #expect(prefix(1) == "-------0")
        #expect(prefix(1_234_567_890_123) == "-GxlykIA")
        #expect(prefix(1_700_000_000_000) == "-NjEtLV-")
    }

    @Test func idsAreStrictlyIncreasingWithinOneMillisecond() {
        var generator = PushIDGenerator()
        var previous = generator.next(timestamp: 1_700_000_000_000)
        for _ in 0..<1_000 {
            let next = generator.next(timestamp: 1_700_000_000_000)
            #expect(next.count == 20)
            #expect(Array(previous.utf8).lexicographicallyPrecedes(Array(next.utf8)))
            #expect(ChildKey(previous) < ChildKey(next))
            previous = next
        }
        let later = generator.next(timestamp: 1_700_000_000_001)
        #expect(ChildKey(previous) < ChildKey(later))
    }
}
