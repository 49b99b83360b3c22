import ExtrasBase64

/// Base64 in the URL-safe alphabet without padding (JWT segments), and a decoder that accepts
/// both alphabets, padded or not (Google APIs' byte fields).
package enum Base64URL {
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// The bytes of `text` in either alphabet, with or without padding; `nil` if it is not base64.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var bytes = Array(text.utf8)
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        let standard = bytes.contains(UInt8(ascii: "+")) || bytes.contains(UInt8(ascii: "/"))
        return try? Base64.decode(
            bytes: bytes, options: standard ? [.omitPaddingCharacter] : [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// Standard base64 with padding (exports, `passwordHash`).
    package static func standard(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes)
    }
}
