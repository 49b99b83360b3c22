import Crypto

/// Lower-case hexadecimal text of bytes (key ids, token hashes, HMAC proofs).
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
}
