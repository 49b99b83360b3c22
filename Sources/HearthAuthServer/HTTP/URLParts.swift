/// Pieces of absolute URLs, as action links and redirect checks need them.
enum URLParts {
    /// The lower-cased host of `scheme://[user@]host[:port]/…` (without brackets for IPv6);
    /// `nil` when `url` is not of that form.
    static func host(of url: String) -> String? {
        guard let separator = url.range(of: "://") else { return nil }
        var authority = url[separator.upperBound...].prefix { !"/?#".contains($0) }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return authority[authority.index(after: authority.startIndex)..<close].lowercased()
        }
        if let colon = authority.firstIndex(of: ":") { authority = authority[..<colon] }
        return authority.isEmpty ? nil : authority.lowercased()
    }
}
