import Foundation

/// An ad the server chose for a banner (`POST /ads/v1/decide`'s `ad`).
struct ServedAd: Decodable, Equatable, Sendable {
    var creativeID: String
    var campaignID: String
    var w: Int
    var h: Int
    var kind: Kind
    var imageURL: String?
    var html: String?
    var clickURL: String
    /// How often the ad unit refreshes, in seconds; `nil` when it does not.
    var refreshSeconds: Int?
    /// The signed decision events are reported with.
    var token: String
    /// When the token stops being accepted, in milliseconds since 1970.
    var expiresAt: Int64

    /// What a creative is.
    enum Kind: String, Decodable, Sendable {
        case image
        case html
    }

    /// Whether a tap leaves the app: a link to an app store (which opens the store's app) or
    /// of a scheme other than `http` and `https`. Other links open a page inside the app.
    var clickLeavesApplication: Bool {
        guard let url = URL(string: clickURL), let scheme = url.scheme?.lowercased() else { return false }
        guard scheme == "http" || scheme == "https" else { return true }
        return Self.storeHosts.contains(url.host?.lowercased() ?? "")
    }

    /// The hosts of the app stores' links.
    static let storeHosts: Set<String> = ["apps.apple.com", "itunes.apple.com", "play.google.com"]
}

/// What a banner shows, as it would draw it: the creative, centred in the banner.
public struct RenderedAd: Sendable, Equatable {
    /// The creative's id on the server.
    public let creativeID: String
    /// The campaign it was chosen for.
    public let campaignID: String
    /// `image` or `html`.
    public let kind: String
    /// The image shown, for an image creative.
    public let imageURL: String?
    /// The markup shown, for an HTML creative.
    public let html: String?
    /// Where a tap goes.
    public let clickURL: String
    /// Where the creative is drawn in the banner's bounds: its own size, centred.
    public let frame: CGRect
}

/// What the last ad a banner received came from, under the Google Mobile Ads SDK's name.
public final class ResponseInfo: Sendable {
    /// The served ad's token, unique to the decision.
    public let responseIdentifier: String?
    /// The ad source that filled the request.
    public let loadedAdNetworkResponseInfo: AdNetworkResponseInfo?
    /// The campaign and creative the ad came from (`campaignID`, `creativeID`).
    public let extrasDictionary: [String: String]

    init(_ ad: ServedAd) {
        responseIdentifier = ad.token
        loadedAdNetworkResponseInfo = AdNetworkResponseInfo()
        extrasDictionary = ["campaignID": ad.campaignID, "creativeID": ad.creativeID]
    }
}

/// One ad source's part in a response, under the Google Mobile Ads SDK's name.
public final class AdNetworkResponseInfo: Sendable {
    /// The ad source: always `Hearth`.
    public let adNetworkClassName = "Hearth"
}
