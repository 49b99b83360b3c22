/// A complete SMTP reply (RFC 5321 §4.2): a three-digit code and the text of each of its lines.
package struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    package var code: Int
    /// The text after the code of each line, without the separator (`-` or space).
    package var lines: [String]

    /// The reply as the server sent it, lines joined with " / ".
    package var description: String { lines.map { $0.isEmpty ? "\(code)" : "\(code) \($0)" }.joined(separator: " / ") }
}
