/// A place in an app where banners show, named by an id shaped like AdMob's
/// (`ca-app-pub-<publisher>/<slot>`).
package struct AdUnit: Codable, Equatable, Sendable {
    package var adUnitID: String
    package var name: String
    /// How often a banner on screen loads a new ad, in seconds; `nil` when it does not.
    package var refreshSeconds: Int?

    /// The refresh intervals AdMob allows.
    static let refreshRange = 30...150

    /// Refuses an id not shaped `ca-app-pub-<digits>/<digits>`, an empty name, or a refresh
    /// interval out of range.
    func validate() throws(AdsError) {
        guard Self.isValidID(adUnitID) else {
            throw .invalidField(field: "adUnitID", reason: "expected an id like ca-app-pub-1234567890123456/1234567890")
        }
        guard !name.isEmpty, name.utf8.count <= 200 else { throw .invalidField(field: "name", reason: "expected 1 to 200 bytes") }
        if let refreshSeconds, !Self.refreshRange.contains(refreshSeconds) {
            throw .invalidField(field: "refreshSeconds", reason: "expected 30 to 150 seconds, or null for no refresh")
        }
    }

    static func isValidID(_ id: String) -> Bool {
        guard id.hasPrefix("ca-app-pub-") else { return false }
        let parts = id.utf8.dropFirst("ca-app-pub-".utf8.count).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { $0.count <= 20 && ASCIIDigits.are($0) }
    }
}

/// Texts made of ASCII digits only, compared byte by byte (a combining mark after a digit is not
/// a digit, nor is a sign).
enum ASCIIDigits {
    static func are(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
