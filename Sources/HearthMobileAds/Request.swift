import Foundation

/// What an app tells the server about the place an ad goes, under the Google Mobile Ads SDK's
/// name: campaigns may target its ``keywords``; ``contentURL`` is reported with the request.
public final class Request {
    /// Words describing the app's content (at most 50, each at most 100 bytes).
    public var keywords: [String]?
    /// The URL of the content shown beside the ad.
    public var contentURL: String?

    /// An empty request.
    public init() {}

    /// The old SDK's factory of an empty request.
    public static func request() -> Request { Request() }

    /// The SDK's version.
    public static func sdkVersion() -> String { MobileAds.sdkVersion }
}
