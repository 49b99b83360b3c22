import Crypto

/// Lower-case hexadecimal text of bytes (key ids, token hashes, HMAC proofs), and the bytes of
/// hexadecimal text in either case.
package enum Hex {
    /// The SHA-256 of a secret's UTF-8 bytes: how stored credentials (refresh tokens, database
    /// secrets) are kept.
    package static func sha256(_ text: String) -> String {
        encode(SHA256.hash(data: Array(text.utf8)))
    }

    private static let digits = Array("0123456789abcdef")

    /// One byte as two upper-case digits (percent-encoding, quoted-printable).
    package static func upperCase(_ byte: UInt8) -> String {
        encode([byte]).uppercased()
    }

    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    /// The value of one hexadecimal digit, in either case.
    package static func value(ofDigit digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The bytes `text` spells, two digits each; `nil` if it is not hexadecimal.
    package static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(ofDigit: digits[index]), let low = value(ofDigit: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
