import HearthCore

/// A URL query string (`orderBy=%22%24key%22&limitToFirst=5`), decoded as HTML forms encode it.
public enum QueryString {
    /// The parameters: `+` is a space, then `%XX` escapes are decoded; the last of repeated
    /// names wins.
    public static func parameters(_ query: String) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in query.utf8.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            parameters[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return parameters
    }

    /// A malformed escape is kept as it is, with `+` still read as a space.
    private static func decode(_ text: Substring.UTF8View) -> String {
        PercentDecoding.decode(text, plusIsSpace: true)
            ?? String(decoding: text.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }
}
