import HearthCore
import Testing

@Suite struct OrderingTests {
    @Test func keysSortIntegersFirstThenByUTF16() {
        let shuffled = ["b", "a", "10", "2", "-1", "01", "1", "Z", "_", "A", "z", "aa", "-", "2147483648", "-2147483648"]
        let sorted = shuffled.map(ChildKey.init).sorted().map(\.string)
        #expect(sorted == ["-2147483648", "-1", "1", "01", "2", "10", "-", "2147483648", "A", "Z", "_", "a", "aa", "b", "z"])
    }

    @Test func protocolExampleOrderByKey() {
        let keys = ["b", "a", "10", "2", "-1", "01", "1", "Z", "_"].map(ChildKey.init).sorted().map(\.string)
        #expect(keys == ["-1", "1", "01", "2", "10", "Z", "_", "a", "b"])
    }

    @Test func stringsCompareByUTF16CodeUnitsNotScalars() {
        // U+FF5E (one UTF-16 unit, 0xFF5E) sorts after U+1F435 (surrogates 0xD83D…) in UTF-16 order,
        // although its code point is smaller.
        #expect(UTF16Order.precedes("🐵", "～"))
        #expect(!UTF16Order.precedes("～", "🐵"))
        #expect(ChildKey("🐵") < ChildKey("～"))
    }

    /// The byte-level comparison agrees with comparing UTF-16 code units, on random strings
    /// mixing ASCII, two- and three-byte characters on both sides of U+E000, and characters
    /// above U+FFFF.
    @Test func utf16OrderMatchesCodeUnitComparison() {
        let pool: [Character] = ["a", "b", "~", "é", "ÿ", "中", "\u{D7FF}", "\u{E000}", "～", "\u{FFFD}", "🐵", "😀", "\u{10000}"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let left = String((0..<Int.random(in: 0...4, using: &generator)).map { _ in pool.randomElement(using: &generator)! })
            let right = String((0..<Int.random(in: 0...4, using: &generator)).map { _ in pool.randomElement(using: &generator)! })
            let expected =
                left.utf16.lexicographicallyPrecedes(right.utf16) ? -1 : (right.utf16.lexicographicallyPrecedes(left.utf16) ? 1 : 0)
            #expect(UTF16Order.compare(left, right) == expected, "\(left) vs \(right)")
        }
    }

    @Test func integerKeyClassification() {
        #expect(ChildKey("2147483647").integerValue == 2_147_483_647)
        #expect(ChildKey("2147483648").integerValue == nil)
        #expect(ChildKey("-0").integerValue == 0)
        #expect(ChildKey("007").integerValue == 7)
        #expect(ChildKey("1.5").integerValue == nil)
        #expect(ChildKey("-").integerValue == nil)
        #expect(ChildKey("").integerValue == nil)
    }

    @Test func valuesSortByTypeRankThenValue() {
        let values: [IndexValue] = [
            .object, .string("a"), .string("A"), .string(""), .number(.double(1.5)), .number(.int(0)), .number(.int(-1)), .bool(true),
            .bool(false), .null,
        ]
        #expect(values.sorted() == values.reversed())
    }

    @Test func numbersCompareMathematically() {
        #expect(Number.int(2) == Number.double(2.0))
        #expect(Number.int(9_007_199_254_740_993) > Number.double(9_007_199_254_740_992.0))
        #expect(Number.int(Int64.max) < Number.double(9.3e18))
        #expect(Number.int(Int64.min) > Number.double(-9.3e18))
        #expect(Number.double(-0.5) < Number.int(0))
        #expect(Number.int(-1) < Number.double(-0.5))
    }

    @Test func prioritiesOrderNumbersBeforeStrings() {
        let priorities: [Priority] = [.string("b"), .number(.int(10)), .string("a"), .number(.double(-1.5))]
        #expect(priorities.sorted() == [.number(.double(-1.5)), .number(.int(10)), .string("a"), .string("b")])
    }
}

@Suite struct UnicodeIdentityTests {
    @Test func canonicallyEquivalentSpellingsAreDistinctKeysAndValues() {
        let precomposed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(precomposed == decomposed)  // Swift's own equality
        #expect(ChildKey(precomposed) != ChildKey(decomposed))
        #expect(LeafValue.string(precomposed) != LeafValue.string(decomposed))
        let node = Node.build(children: [(ChildKey(precomposed), .value(.bool(true))), (ChildKey(decomposed), .value(.bool(false)))])
        #expect(node.children.count == 2)
    }
}
