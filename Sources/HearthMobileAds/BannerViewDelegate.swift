/// What a banner tells its delegate, under the Google Mobile Ads SDK's name. Every method is
/// optional. In order: ``bannerViewDidReceiveAd(_:)`` (again at each refresh), then
/// ``bannerViewDidRecordImpression(_:)`` once the ad is on screen (once per ad); on a tap
/// ``bannerViewDidRecordClick(_:)`` (once per ad), ``bannerViewWillPresentScreen(_:)``, and when
/// the page shown is closed ``bannerViewWillDismissScreen(_:)`` and
/// ``bannerViewDidDismissScreen(_:)``. A failed load gives only
/// ``bannerView(_:didFailToReceiveAdWithError:)``.
@MainActor
public protocol BannerViewDelegate: AnyObject {
    /// An ad arrived and is shown.
    func bannerViewDidReceiveAd(_ bannerView: BannerView)
    /// A load failed; `error` is a ``RequestError`` whose code is a ``GADErrorCode``.
    func bannerView(_ bannerView: BannerView, didFailToReceiveAdWithError error: any Error)
    /// The ad was shown on screen and its impression recorded.
    func bannerViewDidRecordImpression(_ bannerView: BannerView)
    /// The ad was tapped and its click recorded.
    func bannerViewDidRecordClick(_ bannerView: BannerView)
    /// A tap is about to show the ad's page over the app.
    func bannerViewWillPresentScreen(_ bannerView: BannerView)
    /// The ad's page is about to close.
    func bannerViewWillDismissScreen(_ bannerView: BannerView)
    /// The ad's page closed.
    func bannerViewDidDismissScreen(_ bannerView: BannerView)
}

extension BannerViewDelegate {
    public func bannerViewDidReceiveAd(_ bannerView: BannerView) {}
    public func bannerView(_ bannerView: BannerView, didFailToReceiveAdWithError error: any Error) {}
    public func bannerViewDidRecordImpression(_ bannerView: BannerView) {}
    public func bannerViewDidRecordClick(_ bannerView: BannerView) {}
    public func bannerViewWillPresentScreen(_ bannerView: BannerView) {}
    public func bannerViewWillDismissScreen(_ bannerView: BannerView) {}
    public func bannerViewDidDismissScreen(_ bannerView: BannerView) {}
}

/// The delegate of the Google Mobile Ads SDK before version 8, its methods named `adView…`:
/// set it as a banner's `delegate` and these are called beside ``BannerViewDelegate``'s. Every
/// method is optional. A tap on a link that leaves the app (a store's, another app's) gives
/// ``adViewWillLeaveApplication(_:)`` instead of the present and dismiss calls.
@MainActor
public protocol GADBannerViewDelegate: BannerViewDelegate {
    /// An ad arrived and is shown.
    func adViewDidReceiveAd(_ bannerView: GADBannerView)
    /// A load failed.
    func adView(_ bannerView: GADBannerView, didFailToReceiveAdWithError error: GADRequestError)
    /// A tap is about to show the ad's page over the app.
    func adViewWillPresentScreen(_ bannerView: GADBannerView)
    /// The ad's page is about to close.
    func adViewWillDismissScreen(_ bannerView: GADBannerView)
    /// The ad's page closed.
    func adViewDidDismissScreen(_ bannerView: GADBannerView)
    /// A tap is about to open another app.
    func adViewWillLeaveApplication(_ bannerView: GADBannerView)
}

extension GADBannerViewDelegate {
    public func adViewDidReceiveAd(_ bannerView: GADBannerView) {}
    public func adView(_ bannerView: GADBannerView, didFailToReceiveAdWithError error: GADRequestError) {}
    public func adViewWillPresentScreen(_ bannerView: GADBannerView) {}
    public func adViewWillDismissScreen(_ bannerView: GADBannerView) {}
    public func adViewDidDismissScreen(_ bannerView: GADBannerView) {}
    public func adViewWillLeaveApplication(_ bannerView: GADBannerView) {}
}
