import Foundation

// The names of the Google Mobile Ads SDK before version 11, which older apps (and the tutorials
// Hearth's users learnt from) still use. Each is the current name's twin.

/// The old name of ``AdSize``.
public typealias GADAdSize = AdSize
/// The old name of ``BannerView``.
public typealias GADBannerView = BannerView
/// The old name of ``Request``.
public typealias GADRequest = Request

/// 320×50.
public let kGADAdSizeBanner = AdSizeBanner
/// 320×100.
public let kGADAdSizeLargeBanner = AdSizeLargeBanner
/// 300×250.
public let kGADAdSizeMediumRectangle = AdSizeMediumRectangle
/// 468×60.
public let kGADAdSizeFullBanner = AdSizeFullBanner
/// 728×90.
public let kGADAdSizeLeaderboard = AdSizeLeaderboard
/// 120×600.
public let kGADAdSizeSkyscraper = AdSizeSkyscraper
/// The invalid size.
public let kGADAdSizeInvalid = AdSizeInvalid
/// A smart banner for a screen held upright: as wide as the screen, 32, 50 or 90 points high as
/// the screen is at most 400, at most 720, or more points high.
public let kGADAdSizeSmartBannerPortrait = AdSize(size: .zero, flags: AdSize.Kind.smartPortrait.rawValue)
/// A smart banner for a screen held sideways: as wide as the screen, its height by the screen's
/// (short) height as for ``kGADAdSizeSmartBannerPortrait``.
public let kGADAdSizeSmartBannerLandscape = AdSize(size: .zero, flags: AdSize.Kind.smartLandscape.rawValue)

/// The old name of ``adSizeFor(cgSize:)``.
public func GADAdSizeFromCGSize(_ size: CGSize) -> AdSize {
    adSizeFor(cgSize: size)
}

/// The old name of ``isAdSizeValid(_:)``.
public func IsGADAdSizeValid(_ size: AdSize) -> Bool {
    isAdSizeValid(size)
}

/// The old name of ``currentOrientationAnchoredAdaptiveBanner(width:)``.
@MainActor
public func GADCurrentOrientationAnchoredAdaptiveBannerAdSizeWithWidth(_ width: CGFloat) -> AdSize {
    currentOrientationAnchoredAdaptiveBanner(width: width)
}
