/// A place in an app where banners show, named by an id shaped like AdMob's
/// (`ca-app-pub-<publisher>/<slot>`).
package struct AdUnit: Codable, Equatable, Sendable {
    package var adUnitID: String
    package var name: String
    /// How often a banner on screen loads a new ad, in seconds; `nil` when it does not.
    package var refreshSeconds: Int?
    /// The sizes of the slots the unit's banners have, when the admin says: then a campaign's
    /// creatives must each fit (be no wider and no taller than) a size of one of its units.
    package var sizes: [AdSize]?

    /// The refresh intervals AdMob allows.
    static let refreshRange = 30...150

    /// Refuses an id not shaped `ca-app-pub-<digits>/<digits>`, an empty name, a refresh
    /// interval out of range, or a list of sizes empty, too long or out of range.
    func validate() throws(AdsError) {
        guard Self.isValidID(adUnitID) else {
            throw .invalidField(field: "adUnitID", reason: "expected an id like ca-app-pub-1234567890123456/1234567890")
        }
        guard !name.isEmpty, name.utf8.count <= 200 else { throw .invalidField(field: "name", reason: "expected 1 to 200 bytes") }
        if let refreshSeconds, !Self.refreshRange.contains(refreshSeconds) {
            throw .invalidField(field: "refreshSeconds", reason: "expected 30 to 150 seconds, or null for no refresh")
        }
        if let sizes {
            guard (1...20).contains(sizes.count) else { throw .invalidField(field: "sizes", reason: "expected 1 to 20 sizes, or null") }
            for (index, size) in sizes.enumerated() {
                for (name, side) in [("w", size.w), ("h", size.h)] where !(1...AdRequest.maximumSide).contains(side) {
                    throw .invalidField(field: "sizes[\(index)].\(name)", reason: "expected 1 to \(AdRequest.maximumSide)")
                }
            }
        }
    }

    /// Whether a creative of `size` fits a slot of this unit: no wider and no taller than one
    /// of its sizes, or any size when the unit names none.
    func fits(_ size: AdSize) -> Bool {
        sizes?.contains { size.w <= $0.w && size.h <= $0.h } ?? true
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
