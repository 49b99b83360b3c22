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
        guard !name.isEmpty, name.count <= 200 else { throw .invalidField(field: "name", reason: "expected 1 to 200 characters") }
        if let refreshSeconds, !Self.refreshRange.contains(refreshSeconds) {
            throw .invalidField(field: "refreshSeconds", reason: "expected 30 to 150 seconds, or null for no refresh")
        }
    }

    static func isValidID(_ id: String) -> Bool {
        guard id.hasPrefix("ca-app-pub-") else { return false }
        let parts = id.dropFirst("ca-app-pub-".count).split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.count <= 20 && $0.allSatisfy(\.isASCIIDigit) }
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
