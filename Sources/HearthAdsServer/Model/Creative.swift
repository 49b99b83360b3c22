#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a banner shows: an image or an HTML snippet of an exact size, and where a tap goes.
package struct Creative: Codable, Equatable, Sendable {
    package enum Kind: String, Codable, Sendable {
        case image, html
    }

    package var creativeID: String
    package var w: Int
    package var h: Int
    package var kind: Kind
    package var imageURL: String?
    package var html: String?
    package var clickURL: String

    var size: AdSize { AdSize(w: w, h: h) }

    /// The largest creative side, in points (a leaderboard is 728 wide, a medium rectangle 250 high).
    static let maximumSide = 1024
    /// The longest HTML snippet.
    static let maximumHTMLBytes = 256 * 1024

    /// Refuses a size out of range, a kind without its content (or with the other kind's), and
    /// URLs that are not http(s).
    func validate() throws(AdsError) {
        guard (1...Self.maximumSide).contains(w) else { throw .invalidField(field: "w", reason: "expected 1 to \(Self.maximumSide)") }
        guard (1...Self.maximumSide).contains(h) else { throw .invalidField(field: "h", reason: "expected 1 to \(Self.maximumSide)") }
        switch kind {
        case .image:
            guard let imageURL, Self.isWebURL(imageURL) else {
                throw .invalidField(field: "imageURL", reason: "an image creative needs an http or https URL")
            }
            guard html == nil else { throw .invalidField(field: "html", reason: "an image creative has no html") }
        case .html:
            guard let html, !html.isEmpty, html.utf8.count <= Self.maximumHTMLBytes else {
                throw .invalidField(field: "html", reason: "an html creative needs 1 to \(Self.maximumHTMLBytes) bytes of html")
            }
            guard imageURL == nil else { throw .invalidField(field: "imageURL", reason: "an html creative has no imageURL") }
        }
        guard Self.isWebURL(clickURL) else { throw .invalidField(field: "clickURL", reason: "expected an http or https URL") }
    }

    static func isWebURL(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else { return false }
        return true
    }
}
