import Foundation
import Testing

@testable import HearthMobileAds
@testable import ad_banner

/// `Examples/AdBanner`, the seed's view controller with only its import changed, against a test
/// Hearth.
extension BannerTests {
    @Test func theSeedsBannerScreenLoadsItsAdAndHearsTheOldCallbacks() async throws {
        try await withAdsServer { _, admin in
            try await admin.campaign()
            let clock = TestClock()
            let screen = ViewController()
            screen.bannerView.controller.clock = BannerClock(clock)
            screen.viewDidLoad()
            try await eventually("the ad") { screen.callbacks.count >= 2 }
            #expect(screen.callbacks == ["Google Mobile Ads SDK version: \(MobileAds.sdkVersion)", "adViewDidReceiveAd"])
            #expect(screen.bannerView.rootViewController === screen)
            #expect(screen.bannerView.renderedAd?.frame == CGRect(x: 0, y: 0, width: 320, height: 50))

            screen.bannerView.setVisibleFraction(1)
            await clock.advance(by: .seconds(1))
            #expect(screen.bannerView.tap())
            screen.bannerView.dismissPresentedScreen()
            #expect(
                Array(screen.callbacks.dropFirst(2)) == ["adViewWillPresentScreen", "adViewWillDismissScreen", "adViewDidDismissScreen"])
            await screen.bannerView.waitForEvents()
            try await eventually("the viewable impression") { try await admin.totals()["viewable"] == 1 }
            let totals = try await admin.totals()
            #expect(totals["impressions"] == 1 && totals["clicks"] == 1 && totals["invalid"] == 0, "\(totals)")
        }
    }

    @Test func theSeedsBannerScreenReportsNoFillThroughTheOldDelegate() async throws {
        try await withAdsServer { _, admin in
            try await admin.emptyUnit(seedUnit)
            let screen = ViewController()
            screen.viewDidLoad()
            try await eventually("the failure") { screen.callbacks.count >= 2 }
            #expect(screen.callbacks.last == "adView:didFailToReceiveAdWithError: Request Error: No ad to show.")
        }
    }
}
