import Foundation

/// Texts made safe for one URL path segment or query value, as the commands that call a running
/// server send them.
enum URLEscaping {
    /// `text` percent-encoded but for RFC 3986's unreserved characters (ASCII letters, digits,
    /// `-._~`): a `/` or a non-ASCII letter is escaped too.
    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
