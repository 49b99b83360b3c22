import Foundation

/// The bytes of standard base64 text; a test fixture that does not decode fails loudly.
func base64(_ text: String) -> [UInt8] {
    guard let data = Data(base64Encoded: text) else {
        preconditionFailure("fixture is not base64: \(text)")
    }
    return Array(data)
}

/// The bytes of hexadecimal text.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8)
    precondition(digits.count % 2 == 0, "fixture has an odd number of hex digits: \(text)")
    return stride(from: 0, to: digits.count, by: 2).map { index in
        UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16)!
    }
}

/// The UTF-8 bytes of `text`.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}
