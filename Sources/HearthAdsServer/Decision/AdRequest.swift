/// A decide request (`POST /ads/v1/decide`): the slot to fill and what is known of the viewer.
package struct AdRequest: Sendable {
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

    /// An anchored adaptive banner: its width, and the tallest it may be (the SDK knows the
    /// screen; 90 points, the tallest anchored banner, when it does not say).
    package struct Adaptive: Codable, Equatable, Sendable {
        package var width: Int
        package var maxHeight: Int?
    }

    /// Reads a decide request's body, refusing fields it does not know and values of the wrong
    /// type, each by its path.
    init(body: [UInt8]) throws(AdsError) {
        let members = try AdsJSON.members(of: body)
        try Self.shape.check(.object(members), at: "")
        let fields = try JSONFields(.object(members))
        adUnitID = try fields.requiredString("adUnitID")
        size = try fields.object("size").map { size throws(AdsError) in AdSize(w: try size.requiredInt("w"), h: try size.requiredInt("h")) }
        adaptive = try fields.object("adaptive").map { adaptive throws(AdsError) in
            Adaptive(width: try adaptive.requiredInt("width"), maxHeight: try adaptive.int("maxHeight"))
        }
        platform = try fields.string("platform")
        osVersion = try fields.string("osVersion")
        appVersion = try fields.string("appVersion")
        locale = try fields.string("locale")
        keywordList = try fields.strings("keywords")
        contentURL = try fields.string("contentURL")
        viewerKey = try fields.string("viewerKey")
    }

    static let shape = FieldShape.object([
        "adUnitID": .value, "size": .values("w", "h"), "adaptive": .values("width", "maxHeight"), "platform": .value,
        "osVersion": .value, "appVersion": .value, "locale": .value, "keywords": .value, "contentURL": .value,
        "viewerKey": .value,
    ])

    var keywords: [String] { keywordList ?? [] }

    /// The longest viewer key: it travels in the token of every ad served.
    static let maximumViewerKeyBytes = 256

    /// The largest slot side asked for, in points.
    static let maximumSide = 4096

    /// The slot asked for; refuses a request with neither or both of `size` and `adaptive`, or
    /// sizes and texts out of range.
    func slot() throws(AdsError) -> SlotRequest {
        for (field, text, limit) in [
            ("platform", platform, 100), ("osVersion", osVersion, 100), ("appVersion", appVersion, 100), ("locale", locale, 100),
            ("contentURL", contentURL, 2048), ("viewerKey", viewerKey, Self.maximumViewerKeyBytes),
        ] {
            if let text, text.utf8.count > limit { throw .invalidField(field: field, reason: "longer than \(limit) bytes") }
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
            let maxHeight = adaptive.maxHeight ?? SlotRequest.adaptiveMaximumHeight
            guard (1...Self.maximumSide).contains(maxHeight) else {
                throw .invalidField(field: "adaptive.maxHeight", reason: "expected 1 to 4096")
            }
            return .adaptive(width: adaptive.width, maxHeight: maxHeight)
        default:
            throw .invalidField(field: "size", reason: "give either size {w, h} or adaptive {width}")
        }
    }
}
