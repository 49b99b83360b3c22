import HearthMobileAds

/// The seed's banner screen (000, §IV): a 320×50 `GADBannerView` at the bottom of the screen,
/// loaded in `viewDidLoad`, its delegate printing each callback. Only the import differs from
/// the seed's code, and, with no UIKit here, the banner is made in code where the seed's
/// storyboard made it.
@MainActor
final class ViewController: GADBannerViewDelegate {
    /// On iOS an outlet to the storyboard's banner: 320×50, centred at the bottom.
    var bannerView: GADBannerView! = GADBannerView(adSize: kGADAdSizeBanner)
    /// Every callback, in order, as printed.
    private(set) var callbacks: [String] = []

    func viewDidLoad() {
        say("Google Mobile Ads SDK version: \(GADRequest.sdkVersion())")
        bannerView.adUnitID = "ca-app-pub-3940256099942544/2934735716"
        bannerView.rootViewController = self
        bannerView.delegate = self
        bannerView.load(GADRequest())
    }

    /// Tells the delegate an ad request loaded an ad.
    func adViewDidReceiveAd(_ bannerView: GADBannerView) {
        say("adViewDidReceiveAd")
    }

    /// Tells the delegate an ad request failed.
    func adView(_ bannerView: GADBannerView, didFailToReceiveAdWithError error: GADRequestError) {
        say("adView:didFailToReceiveAdWithError: \(error.localizedDescription)")
    }

    /// Tells the delegate that a full-screen view will be presented in response to the user
    /// clicking on an ad.
    func adViewWillPresentScreen(_ bannerView: GADBannerView) {
        say("adViewWillPresentScreen")
    }

    /// Tells the delegate that the full-screen view will be dismissed.
    func adViewWillDismissScreen(_ bannerView: GADBannerView) {
        say("adViewWillDismissScreen")
    }

    /// Tells the delegate that the full-screen view has been dismissed.
    func adViewDidDismissScreen(_ bannerView: GADBannerView) {
        say("adViewDidDismissScreen")
    }

    /// Tells the delegate that a user click will open another app (such as the App Store),
    /// backgrounding the current app.
    func adViewWillLeaveApplication(_ bannerView: GADBannerView) {
        say("adViewWillLeaveApplication")
    }

    private func say(_ line: String) {
        callbacks.append(line)
        print(line)
    }
}
