import HearthCore

/// `%XX` escapes in URL paths and query strings, decoded byte by byte.
package enum PercentDecoding {
    /// The text of `bytes` with every `%XX` escape decoded, and `+` read as a space when
    /// `plusIsSpace` (HTML form encoding, used by query strings). `nil` when an escape is
    /// malformed or the decoded bytes are not UTF-8.
    package static func decode(_ bytes: some Collection<UInt8>, plusIsSpace: Bool) -> String? {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            switch byte {
            case UInt8(ascii: "%"):
                guard index != bytes.endIndex, let high = Hex.value(ofDigit: bytes[index]) else { return nil }
                index = bytes.index(after: index)
                guard index != bytes.endIndex, let low = Hex.value(ofDigit: bytes[index]) else { return nil }
                index = bytes.index(after: index)
                decoded.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                decoded.append(UInt8(ascii: " "))
            default:
                decoded.append(byte)
            }
        }
        return String(validating: decoded, as: UTF8.self)
    }
}
