import Foundation
import Testing

@testable import HearthMobileAds

/// Viewability, reloads and refreshes, timed by a test clock.
extension BannerTests {
    @Test func aViewableImpressionNeedsHalfTheBannerForOneContinuousSecond() async throws {
        try await withAdsServer { _, admin in
            try await admin.campaign()
            let log = CallLog()
            let clock = TestClock()
            let banner = makeBanner(log: log, clock: clock)
            banner.load(Request())
            try await log.wait(for: 1)
            @MainActor func viewable() -> Bool { banner.controller.shown?.viewable ?? false }

            banner.setVisibleFraction(0.49)
            await clock.advance(by: .seconds(5))
            #expect(!viewable(), "49% is not viewable however long")

            banner.setVisibleFraction(0.5)
            await clock.advance(by: .milliseconds(990))
            banner.setVisibleFraction(0.3)
            await clock.advance(by: .seconds(5))
            #expect(!viewable(), "0.99 s is not a second")

            banner.setVisibleFraction(0.8)
            await clock.advance(by: .milliseconds(600))
            banner.setVisibleFraction(0.4)
            banner.setVisibleFraction(1)
            await clock.advance(by: .milliseconds(600))
            #expect(!viewable(), "an interruption starts the second again")
            await clock.advance(by: .milliseconds(400))
            try await eventually("the viewable impression") { viewable() }

            await banner.waitForEvents()
            let totals = try await admin.totals()
            #expect(totals["impressions"] == 1 && totals["viewable"] == 1, "\(totals)")
        }
    }

    @Test func aNewLoadSilencesThePreviousOne() async throws {
        try await withAdsServer { _, admin in
            try await admin.campaign()
            let log = CallLog()
            let clock = TestClock()
            let banner = makeBanner(log: log, clock: clock)
            banner.setVisibleFraction(1)
            banner.load(Request())
            banner.load(Request())
            try await log.wait(for: 2)
            #expect(try await log.staysQuiet())
            #expect(log.calls == ["didReceiveAd", "didRecordImpression"], "the first load's answer is dropped")
            let first = banner.responseInfo?.responseIdentifier

            // The ad on screen half a second, then a reload: its viewable second never completes.
            await clock.advance(by: .milliseconds(500))
            banner.load(Request())
            #expect(banner.renderedAd == nil)
            try await log.wait(for: 4)
            #expect(banner.responseInfo?.responseIdentifier != first)
            await clock.advance(by: .milliseconds(600))
            #expect(!(banner.controller.shown?.viewable ?? true), "the new ad has been on screen 0.6 s")
            await clock.advance(by: .milliseconds(400))
            try await eventually("the new ad's viewable impression") { banner.controller.shown?.viewable ?? false }
            await banner.waitForEvents()
            let totals = try await admin.totals()
            #expect(totals["impressions"] == 2 && totals["viewable"] == 1, "\(totals)")
        }
    }

    @Test func aBannerRefreshesOnlyWhileOnScreenAndNoPageIsPresented() async throws {
        try await withAdsServer { _, admin in
            let (banner, log, clock) = try await refreshingBannerOnScreen(admin)
            @MainActor func received() -> Int { log.calls.filter { $0 == "didReceiveAd" }.count }

            await clock.advance(by: .seconds(29))
            #expect(received() == 1)
            await clock.advance(by: .seconds(1))
            try await eventually("the first refresh") { received() == 2 }

            banner.setVisibleFraction(0)
            await clock.advance(by: .seconds(60))
            #expect(try await log.staysQuiet())
            #expect(received() == 2, "no refresh off screen")
            banner.setVisibleFraction(1)
            try await eventually("the refresh once back on screen") { received() == 3 }

            #expect(banner.tap())
            await clock.advance(by: .seconds(45))
            #expect(try await log.staysQuiet())
            #expect(received() == 3, "no refresh under the page presented")
            banner.dismissPresentedScreen()
            try await eventually("the refresh once the page closed") { received() == 4 }
            #expect(!log.calls.contains("didFailToReceiveAd"))
            await banner.waitForEvents()
            #expect(try await admin.totals()["impressions"] == 4)
        }
    }

    @Test func aRefreshThatFailsKeepsTheAdAndTriesAgainAtTheNextInterval() async throws {
        try await withAdsServer { server, admin in
            let (banner, log, clock) = try await refreshingBannerOnScreen(admin)
            await banner.waitForEvents()
            let shown = banner.renderedAd

            await server.suspend()
            await clock.advance(by: .seconds(30))
            try await log.wait(for: 3)
            #expect(log.calls == ["didReceiveAd", "didRecordImpression", "didFailToReceiveAd"])
            #expect(log.errors.first?.code == GADErrorCode.networkError.rawValue)
            #expect(banner.renderedAd == shown, "the ad stays")

            try await server.resume()
            await clock.advance(by: .seconds(30))
            try await log.wait(for: 5)
            #expect(Array(log.calls.suffix(2)) == ["didReceiveAd", "didRecordImpression"])
            await banner.waitForEvents()
        }
    }

    @Test func aDelegateMayLoadAgainFromItsCallbacks() async throws {
        try await withAdsServer { _, admin in
            try await admin.campaign()
            let log = ReloadingDelegate()
            let banner = BannerView(adSize: AdSizeBanner)
            banner.adUnitID = seedUnit
            banner.delegate = log
            banner.controller.clock = BannerClock(TestClock())
            banner.setVisibleFraction(1)
            banner.load(Request())
            try await eventually("two ads") { log.calls.count >= 3 }
            #expect(log.calls == ["didReceiveAd", "didReceiveAd", "didRecordImpression"], "the first ad, silenced, records nothing")

            #expect(banner.tap())
            #expect(banner.presentedPageURL == nil, "the page of the ad taken down is not shown")
            try await eventually("the third ad") { log.calls.count >= 6 }
            #expect(Array(log.calls.suffix(3)) == ["didRecordClick", "didReceiveAd", "didRecordImpression"])
            await banner.waitForEvents()
            let totals = try await admin.totals()
            #expect(totals["impressions"] == 2 && totals["clicks"] == 1 && totals["invalid"] == 0, "\(totals)")
        }
    }

    @Test func smartAndAdaptiveBannersGetTheLargestCreativeThatFitsCentred() async throws {
        try await withAdsServer { _, admin in
            try await admin.campaign(sizes: [(320, 50), (728, 90), (300, 250)])
            let kept = DeviceScreen.size
            defer { DeviceScreen.size = kept }

            DeviceScreen.size = CGSize(width: 390, height: 844)
            let log = CallLog()
            let smart = makeBanner(kGADAdSizeSmartBannerPortrait, log: log, clock: TestClock())
            smart.load(Request())
            try await log.wait(for: 1)
            #expect(smart.renderedAd?.frame == CGRect(x: 35, y: 20, width: 320, height: 50), "390×90 slot, 320×50 centred")

            DeviceScreen.size = CGSize(width: 1024, height: 1366)
            let tabletLog = CallLog()
            let wide = makeBanner(currentOrientationAnchoredAdaptiveBanner(width: 1024), log: tabletLog, clock: TestClock())
            #expect(wide.adSize.size == CGSize(width: 1024, height: 90))
            wide.load(Request())
            try await tabletLog.wait(for: 1)
            #expect(wide.renderedAd?.frame == CGRect(x: 148, y: 0, width: 728, height: 90))

            let exactLog = CallLog()
            let rectangle = makeBanner(AdSizeMediumRectangle, log: exactLog, clock: TestClock())
            rectangle.load(Request())
            try await exactLog.wait(for: 1)
            #expect(rectangle.renderedAd?.frame == CGRect(x: 0, y: 0, width: 300, height: 250))

            let noneLog = CallLog()
            let leaderboardTooTall = makeBanner(adSizeFor(cgSize: CGSize(width: 728, height: 80)), log: noneLog, clock: TestClock())
            leaderboardTooTall.load(Request())
            try await noneLog.wait(for: 1)
            #expect(noneLog.errors.first?.code == GADErrorCode.noFill.rawValue, "an exact size takes only its own")
        }
    }

    @Test func startReportsHearthReadyAndTheOldConfigureStartsToo() async throws {
        let status = await MobileAds.shared.start()
        #expect(status.adapterStatusesByClassName["Hearth"]?.state == .ready)
        GADMobileAds.configure(withApplicationID: "ca-app-pub-3940256099942544~1458002511")
        #expect(GADMobileAds.sharedInstance().applicationIdentifier == "ca-app-pub-3940256099942544~1458002511")
        await withCheckedContinuation { continuation in
            MobileAds.shared.start { status in
                #expect(status.adapterStatusesByClassName["Hearth"]?.state == .ready)
                continuation.resume()
            }
        }
    }
}

/// A banner of a unit refreshing every 30 s, its first ad received and on screen.
@MainActor
private func refreshingBannerOnScreen(_ admin: AdsAdmin) async throws -> (BannerView, CallLog, TestClock) {
    try await admin.campaign(refreshSeconds: 30)
    let log = CallLog()
    let clock = TestClock()
    let banner = makeBanner(log: log, clock: clock)
    banner.load(Request())
    try await log.wait(for: 1)
    banner.setVisibleFraction(1)
    return (banner, log, clock)
}

/// A delegate that loads again when the first ad arrives and when an ad is clicked.
@MainActor
final class ReloadingDelegate: BannerViewDelegate {
    private(set) var calls: [String] = []

    func bannerViewDidReceiveAd(_ bannerView: BannerView) {
        calls.append("didReceiveAd")
        if calls.count == 1 { bannerView.load(Request()) }
    }
    func bannerViewDidRecordImpression(_ bannerView: BannerView) { calls.append("didRecordImpression") }
    func bannerViewDidRecordClick(_ bannerView: BannerView) {
        calls.append("didRecordClick")
        bannerView.load(Request())
    }
    func bannerViewWillPresentScreen(_ bannerView: BannerView) { calls.append("willPresentScreen") }
}
