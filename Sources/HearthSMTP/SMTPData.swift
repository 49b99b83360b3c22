/// The text sent after `DATA` (RFC 5321 §4.5.2): a line that starts with "." gets another one in
/// front ("dot-stuffing"), and a line holding only "." ends the message.
enum SMTPData {
    /// `message` (lines ending in CRLF) stuffed and terminated.
    static func encode(_ message: String) -> String {
        var lines = message.split(separator: "\r\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        return lines.map { $0.hasPrefix(".") ? "." + $0 : String($0) }.joined(separator: "\r\n") + "\r\n.\r\n"
    }
}
