import HearthCore

/// Percent-encoding of a value as one URL path segment or query value: every byte but the
/// unreserved `A–Z a–z 0–9 - . _ ~` is escaped (so `/` becomes `%2F`), which every product's
/// links and names need.
package enum PercentEncoding {
    package static func encode(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + Hex.upperCase(byte)
            }
        }
        return result
    }
}
