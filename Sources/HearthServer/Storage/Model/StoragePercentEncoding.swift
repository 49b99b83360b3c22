/// Percent-encoding of bucket and object names as one URL path segment or query value: every
/// byte except the unreserved `A–Z a–z 0–9 - . _ ~` is escaped, so `/` becomes `%2F`.
enum StoragePercentEncoding {
    static func encode(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return result
    }
}
