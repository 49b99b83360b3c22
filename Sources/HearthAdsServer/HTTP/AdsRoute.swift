import HearthEdge

/// What an `/ads/v1/…` path names.
enum AdsRoute: Equatable {
    case decide
    case events
    case explain
    case reports
    /// The time the server decides and counts by, which tests set in development.
    case clock
    /// A collection of the catalog (`adUnits`, `creatives`, `campaigns`), or one of its objects
    /// (its id percent-decoded: an ad unit's id holds a `/`, sent as `%2F`).
    case collection(String)
    case object(String, id: String)
    /// Images for creatives: uploaded by an admin, served to anyone by their hash.
    case uploadImage
    case image(hash: String)
    case unknown

    static let prefix = "/ads/v1/"
    static let collections: Set<String> = ["adUnits", "creatives", "campaigns"]

    /// Whether `path` is the ads server's: a path ending in `.json` stays the database's REST
    /// API's, whatever its location.
    static func claims(_ path: String) -> Bool { path.hasPrefix(prefix) && !path.hasSuffix(".json") }

    init(path: String) {
        let rest = path.dropFirst(Self.prefix.count)
        switch rest {
        case "decide": self = .decide
        case "events": self = .events
        case "admin/explain": self = .explain
        case "admin/reports": self = .reports
        case "admin/clock": self = .clock
        case "admin/images": self = .uploadImage
        case let image where image.hasPrefix("images/") && CreativeImage.isHash(String(image.dropFirst("images/".count))):
            self = .image(hash: String(image.dropFirst("images/".count)))
        default:
            guard rest.hasPrefix("admin/") else {
                self = .unknown
                return
            }
            let parts = rest.dropFirst("admin/".count).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let collection = parts.first.map(String.init), Self.collections.contains(collection) else {
                self = .unknown
                return
            }
            if parts.count == 1 {
                self = .collection(collection)
            } else if !parts[1].isEmpty, let id = PercentDecoding.decode(parts[1].utf8, plusIsSpace: false) {
                self = .object(collection, id: id)
            } else {
                self = .unknown
            }
        }
    }
}
