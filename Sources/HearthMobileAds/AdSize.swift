import Foundation

/// A banner's size in points, under the Google Mobile Ads SDK's name: an exact size, or one
/// worked out for the screen (smart banners) or a width (anchored adaptive banners), which the
/// server fills with the largest creative that fits, centred.
public struct AdSize: Sendable, Equatable {
    /// The size in points; `.zero` for smart banners, whose size comes from the screen.
    public var size: CGSize
    /// What kind of size it is (Hearth's values; Google's are private too).
    public var flags: UInt

    /// The invalid size.
    public init() {
        self.init(size: .zero, flags: 0)
    }

    init(size: CGSize, flags: UInt) {
        self.size = size
        self.flags = flags
    }

    /// The kinds of size ``flags`` tells apart.
    enum Kind: UInt {
        case exact = 0
        case smartPortrait = 1
        case smartLandscape = 2
        case anchoredAdaptive = 3
    }

    var kind: Kind { Kind(rawValue: flags) ?? .exact }
}

/// 320×50, the standard banner.
public let AdSizeBanner = AdSize(size: CGSize(width: 320, height: 50), flags: 0)
/// 320×100.
public let AdSizeLargeBanner = AdSize(size: CGSize(width: 320, height: 100), flags: 0)
/// 300×250, the medium rectangle.
public let AdSizeMediumRectangle = AdSize(size: CGSize(width: 300, height: 250), flags: 0)
/// 468×60, the full banner.
public let AdSizeFullBanner = AdSize(size: CGSize(width: 468, height: 60), flags: 0)
/// 728×90, the leaderboard.
public let AdSizeLeaderboard = AdSize(size: CGSize(width: 728, height: 90), flags: 0)
/// 120×600, the skyscraper.
public let AdSizeSkyscraper = AdSize(size: CGSize(width: 120, height: 600), flags: 0)
/// The invalid size: a banner of this size fails to load with ``GADErrorCode/invalidRequest``.
public let AdSizeInvalid = AdSize()

/// An exact size of `cgSize` points.
public func adSizeFor(cgSize: CGSize) -> AdSize {
    AdSize(size: cgSize, flags: AdSize.Kind.exact.rawValue)
}

/// Whether `size` can be requested: a smart banner, or a size of at least a point each way.
public func isAdSizeValid(_ size: AdSize) -> Bool {
    switch size.kind {
    case .smartPortrait, .smartLandscape: true
    case .exact, .anchoredAdaptive: size.size.width >= 1 && size.size.height >= 1
    }
}

/// The anchored adaptive banner `width` points wide for the screen's current orientation: 50
/// points high per 320 of width, at least 50 and at most 90 points or 15% of the screen's
/// height, whichever is less.
@MainActor
public func currentOrientationAnchoredAdaptiveBanner(width: CGFloat) -> AdSize {
    anchoredAdaptive(width: width, screenHeight: DeviceScreen.size.height, heightPer320: 50, ceiling: 90, screenShare: 0.15)
}

/// The anchored adaptive banner `width` points wide for the screen held upright.
@MainActor
public func portraitAnchoredAdaptiveBanner(width: CGFloat) -> AdSize {
    let screen = DeviceScreen.size
    return anchoredAdaptive(
        width: width, screenHeight: max(screen.width, screen.height), heightPer320: 50, ceiling: 90, screenShare: 0.15)
}

/// The anchored adaptive banner `width` points wide for the screen held sideways.
@MainActor
public func landscapeAnchoredAdaptiveBanner(width: CGFloat) -> AdSize {
    let screen = DeviceScreen.size
    return anchoredAdaptive(
        width: width, screenHeight: min(screen.width, screen.height), heightPer320: 50, ceiling: 90, screenShare: 0.15)
}

/// A taller anchored adaptive banner `width` points wide: 100 points high per 320 of width,
/// at least 50 and at most 150 points or 20% of the screen's height, whichever is less
/// (Hearth's proportions; Google does not publish its own).
@MainActor
public func largeAnchoredAdaptiveBanner(width: CGFloat) -> AdSize {
    anchoredAdaptive(width: width, screenHeight: DeviceScreen.size.height, heightPer320: 100, ceiling: 150, screenShare: 0.2)
}

/// An anchored adaptive size: `heightPer320` points high per 320 points of width, between 50 and
/// the lesser of `ceiling` and `screenShare` of the screen's height.
func anchoredAdaptive(width: CGFloat, screenHeight: CGFloat, heightPer320: CGFloat, ceiling: CGFloat, screenShare: CGFloat)
    -> AdSize
{
    guard width >= 1 else { return AdSizeInvalid }
    let tallest = max(50, min(ceiling, (screenHeight * screenShare).rounded(.down)))
    let height = min(tallest, max(50, (width * heightPer320 / 320).rounded()))
    return AdSize(size: CGSize(width: width.rounded(.down), height: height), flags: AdSize.Kind.anchoredAdaptive.rawValue)
}

/// The height of a smart banner on a screen `screenHeight` points high, held as it is: 32 up to
/// 400 points, 50 up to 720, 90 above.
func smartBannerHeight(screenHeight: CGFloat) -> CGFloat {
    switch screenHeight {
    case ...400: 32
    case ...720: 50
    default: 90
    }
}

extension AdSize {
    /// The size a banner asks for on a screen of `screen` points: a smart banner's is as wide as
    /// the screen held its way, its height by that screen height; other sizes are what they say.
    func resolved(screen: CGSize) -> CGSize {
        let short = min(screen.width, screen.height)
        let long = max(screen.width, screen.height)
        switch kind {
        case .smartPortrait: return CGSize(width: short, height: smartBannerHeight(screenHeight: long))
        case .smartLandscape: return CGSize(width: long, height: smartBannerHeight(screenHeight: short))
        case .exact, .anchoredAdaptive: return size
        }
    }

    /// Whether the server is asked for the largest creative that fits rather than this exact size.
    var isFlexible: Bool { kind != .exact }
}
