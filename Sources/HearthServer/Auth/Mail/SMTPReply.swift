/// A complete SMTP reply (RFC 5321 §4.2): a three-digit code and the text of each of its lines.
struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    var code: Int
    /// The text after the code of each line, without the separator (`-` or space).
    var lines: [String]

    /// The reply as the server sent it, lines joined with " / ".
    var description: String { lines.map { $0.isEmpty ? "\(code)" : "\(code) \($0)" }.joined(separator: " / ") }
}
