/// A decide request (`POST /ads/v1/decide`): the slot to fill and what is known of the viewer.
package struct AdRequest: Decodable, Sendable {
    package var adUnitID: String
    package var size: AdSize?
    package var adaptive: Adaptive?
    package var platform: String?
    package var osVersion: String?
    package var appVersion: String?
    package var locale: String?
    package var keywordList: [String]?
    package var contentURL: String?
    /// An opaque, stable id of the viewer (frequency caps count per viewer).
    package var viewerKey: String?

    package struct Adaptive: Codable, Equatable, Sendable {
        package var width: Int
    }

    enum CodingKeys: String, CodingKey {
        case adUnitID, size, adaptive, platform, osVersion, appVersion, locale, contentURL, viewerKey
        case keywordList = "keywords"
    }

    static let fields: Set<String> = [
        "adUnitID", "size", "adaptive", "platform", "osVersion", "appVersion", "locale", "keywords", "contentURL", "viewerKey",
    ]

    var keywords: [String] { keywordList ?? [] }

    /// The largest slot side asked for, in points.
    static let maximumSide = 4096

    /// The slot asked for; refuses a request with neither or both of `size` and `adaptive`, or
    /// sizes and texts out of range.
    func slot() throws(AdsError) -> SlotRequest {
        for (field, text) in [
            ("platform", platform), ("osVersion", osVersion), ("appVersion", appVersion), ("locale", locale),
            ("contentURL", contentURL), ("viewerKey", viewerKey),
        ] {
            if let text, text.utf8.count > 2048 { throw .invalidField(field: field, reason: "longer than 2048 bytes") }
        }
        if keywords.count > 50 { throw .invalidField(field: "keywords", reason: "more than 50 keywords") }
        if let index = keywords.firstIndex(where: { $0.utf8.count > 100 }) {
            throw .invalidField(field: "keywords[\(index)]", reason: "longer than 100 bytes")
        }
        switch (size, adaptive) {
        case (let size?, nil):
            guard (1...Self.maximumSide).contains(size.w) else { throw .invalidField(field: "size.w", reason: "expected 1 to 4096") }
            guard (1...Self.maximumSide).contains(size.h) else { throw .invalidField(field: "size.h", reason: "expected 1 to 4096") }
            return .exact(size)
        case (nil, let adaptive?):
            guard (1...Self.maximumSide).contains(adaptive.width) else {
                throw .invalidField(field: "adaptive.width", reason: "expected 1 to 4096")
            }
            return .adaptive(width: adaptive.width)
        default:
            throw .invalidField(field: "size", reason: "give either size {w, h} or adaptive {width}")
        }
    }
}
