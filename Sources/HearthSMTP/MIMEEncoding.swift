import Foundation
import HearthCore

/// The encodings that keep a message 7-bit clean: quoted-printable for bodies (RFC 2045 §6.7) and
/// RFC 2047 encoded words for header text that is not plain ASCII.
enum MIMEEncoding {
    /// `text` quoted-printable encoded, lines ending in CRLF and at most 76 characters long (longer
    /// ones are split with soft line breaks). Any of CRLF, LF and CR counts as a line break.
    static func quotedPrintable(_ text: String) -> String {
        lines(of: text).map(quotedPrintableLine).joined(separator: "\r\n")
    }

    /// `text` for an unstructured header field such as `Subject`: as it is when it is printable
    /// ASCII, else as UTF-8 "B" encoded words; line breaks in `text` become spaces, and long
    /// values are folded. `fieldName` is the name before the colon, which shares the first line.
    static func headerText(_ text: String, fieldName: String) -> String {
        let flat = lines(of: text).joined(separator: " ")
        let isPlain = flat.utf8.allSatisfy { (0x20...0x7E).contains($0) } && !flat.contains("=?")
        return isPlain ? folded(flat, firstLineUsed: fieldName.count + 2) : encodedWords(flat, firstLineUsed: fieldName.count + 2)
    }

    private static func lines(of text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
    }

    private static func quotedPrintableLine(_ line: String) -> String {
        let bytes = Array(line.utf8)
        var output = ""
        var length = 0
        for (index, byte) in bytes.enumerated() {
            let isLast = index == bytes.count - 1
            let piece: String
            switch byte {
            case 0x20 where !isLast, 0x09 where !isLast, 0x21...0x3C, 0x3E...0x7E: piece = String(UnicodeScalar(byte))
            default: piece = "=" + Hex.upperCase(byte)
            }
            // A soft line break ("=") takes one of the 76 characters, except after the last piece.
            if length + piece.count > (isLast ? 76 : 75) {
                output += "=\r\n"
                length = 0
            }
            output += piece
            length += piece.count
        }
        return output
    }

    /// `text` with line breaks put before spaces so that lines stay within 78 characters where
    /// the words allow.
    private static func folded(_ text: String, firstLineUsed: Int) -> String {
        var output = ""
        var length = firstLineUsed
        for (index, word) in text.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            if index > 0 {
                if length + 1 + word.count > 78 {
                    output += "\r\n"
                    length = 0
                }
                output += " "
                length += 1
            }
            output += word
            length += word.count
        }
        return output
    }

    /// `text` as RFC 2047 encoded words, one per line, each at most 75 characters long and no line
    /// longer than 78; no character is split between two words.
    private static func encodedWords(_ text: String, firstLineUsed: Int) -> String {
        // "=?UTF-8?B?…?=" takes 12 characters; every 3 bytes take 4 characters of base64. Later
        // lines start with a space and hold 45 bytes.
        var capacity = min(45, (78 - firstLineUsed - 12) / 4 * 3)
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(character.utf8)
            if !chunk.isEmpty && chunk.count + bytes.count > capacity {
                words.append(encodedWord(chunk))
                chunk = []
                capacity = 45
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(encodedWord(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func encodedWord(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?\(Data(bytes).base64EncodedString())?="
    }
}
