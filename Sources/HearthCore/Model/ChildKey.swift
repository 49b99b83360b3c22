/// The name of one child of a node, ordered the way Firebase orders keys.
///
/// Keys that look like 32-bit integers (`"-12"`, `"7"`, `"007"`) sort first, numerically; two such
/// keys with the same value sort by length, shorter first. Every other key sorts by UTF-16 code
/// units, as JavaScript and Java compare strings.
///
/// `ChildKey` does not validate its text; ``KeyValidation`` does that where data enters Hearth.
public struct ChildKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The key's text.
    public let string: String
    /// The key's value when it is an integer key, `nil` otherwise.
    public let integerValue: Int32?

    /// Wraps `string`, classifying it as an integer key or a string key.
    public init(_ string: String) {
        self.string = string
        self.integerValue = Self.parseIntegerKey(string)
    }

    public var description: String { string }

    /// Keys are equal when their bytes are: Firebase does not treat canonically equivalent
    /// Unicode spellings as one key, although Swift's `String ==` would.
    public static func == (lhs: ChildKey, rhs: ChildKey) -> Bool {
        lhs.string.isIdentical(to: rhs.string)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(string)
    }

    public static func < (lhs: ChildKey, rhs: ChildKey) -> Bool {
        switch (lhs.integerValue, rhs.integerValue) {
        case (let left?, let right?):
            if left != right { return left < right }
            let leftCount = lhs.string.utf8.count
            let rightCount = rhs.string.utf8.count
            if leftCount != rightCount { return leftCount < rightCount }
            return lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8)
        case (.some, nil):
            return true
        case (nil, .some):
            return false
        case (nil, nil):
            return UTF16Order.precedes(lhs.string, rhs.string)
        }
    }

    /// Parses `^-?\d+$` whose digits, without leading zeros, are at most ten long and whose value
    /// lies in the signed 32-bit range.
    private static func parseIntegerKey(_ string: String) -> Int32? {
        var utf8 = Substring(string).utf8[...]
        var negative = false
        if utf8.first == UInt8(ascii: "-") {
            negative = true
            utf8 = utf8.dropFirst()
        }
        guard !utf8.isEmpty else { return nil }
        var value: Int64 = 0
        var significantDigits = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            if significantDigits == 0 && byte == UInt8(ascii: "0") { continue }
            significantDigits += 1
            if significantDigits > 10 { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        if negative { value = -value }
        guard value >= Int64(Int32.min), value <= Int64(Int32.max) else { return nil }
        return Int32(value)
    }
}

/// String comparison by UTF-16 code units, the order JavaScript's `<` and Java's `compareTo` use.
public enum UTF16Order {
    /// Whether `lhs` sorts strictly before `rhs`.
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// -1, 0 or 1 as `lhs` sorts before, equal to or after `rhs`.
    public static func compare(_ lhs: String, _ rhs: String) -> Int {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in rhs.withUTF8 { right in compare(left, right) } }
    }

    /// Compares UTF-8 bytes in UTF-16 order. UTF-8 byte order is code-point order, which
    /// differs from UTF-16 order in one case only: a character in U+E000...U+FFFF (lead byte
    /// 0xEE or 0xEF) sorts after a character above U+FFFF (lead byte 0xF0 or more) in UTF-16,
    /// whose surrogates are below U+E000. Equal prefixes end at the same character boundary,
    /// so the first differing bytes are either both lead bytes or both continuations of
    /// characters with the same lead byte, which sort alike in both orders.
    private static func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        let common = Swift.min(left.count, right.count)
        var index = 0
        while index < common && left[index] == right[index] { index += 1 }
        guard index < common else { return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1) }
        let leftByte = left[index]
        let rightByte = right[index]
        if leftByte >= 0xF0 && (rightByte == 0xEE || rightByte == 0xEF) { return -1 }
        if rightByte >= 0xF0 && (leftByte == 0xEE || leftByte == 0xEF) { return 1 }
        return leftByte < rightByte ? -1 : 1
    }
}

extension String {
    /// Whether both strings hold the same bytes. Unlike `==`, canonically equivalent but
    /// differently encoded strings (`é` and `e` + combining accent) are different, as they are
    /// to Firebase.
    public func isIdentical(to other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var left = self
        var right = other
        return left.withUTF8 { leftBytes in right.withUTF8 { leftBytes.elementsEqual($0) } }
    }
}
