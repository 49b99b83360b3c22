import Foundation
import HearthTestSupport
import Testing

@testable import HearthMobileAds

/// Banners against a live test Hearth. The SDK has one server setting, so these run one at a
/// time; each starts a server of its own.
@Suite(.serialized) @MainActor struct BannerTests {
    @Test func aBannerIsFilledThenRecordsItsImpressionViewableAndClickInOrder() async throws {
        try await withAdsServer { _, admin in
            try await admin.campaign()
            let log = CallLog()
            let clock = TestClock()
            let banner = makeBanner(log: log, clock: clock)
            banner.load(Request())
            try await log.wait(for: 1)
            #expect(log.calls == ["didReceiveAd"])
            #expect(banner.renderedAd?.frame == CGRect(x: 0, y: 0, width: 320, height: 50))
            #expect(banner.responseInfo?.loadedAdNetworkResponseInfo?.adNetworkClassName == "Hearth")
            #expect(!banner.tap(), "an ad off screen cannot be tapped")

            banner.setVisibleFraction(1)
            #expect(log.calls == ["didReceiveAd", "didRecordImpression"])
            banner.setVisibleFraction(0)
            banner.setVisibleFraction(1)
            #expect(log.calls.filter { $0 == "didRecordImpression" }.count == 1, "one impression per ad")
            await clock.advance(by: .seconds(1))
            try await eventually("the viewable impression") { banner.controller.shown?.viewable ?? false }

            #expect(banner.tap())
            #expect(banner.presentedPageURL == "https://example.com/sale")
            #expect(!banner.tap(), "no tap through the page presented")
            banner.dismissPresentedScreen()
            #expect(banner.presentedPageURL == nil)
            #expect(banner.tap())
            banner.dismissPresentedScreen()
            #expect(
                log.calls == [
                    "didReceiveAd", "didRecordImpression", "didRecordClick", "willPresentScreen", "willDismissScreen",
                    "didDismissScreen", "willPresentScreen", "willDismissScreen", "didDismissScreen",
                ])
            await banner.waitForEvents()
            let totals = try await admin.totals()
            #expect(totals["impressions"] == 1 && totals["viewable"] == 1 && totals["clicks"] == 1 && totals["invalid"] == 0, "\(totals)")
        }
    }

    @Test func eachEventIsReportedOnceWhateverTheBannerIsPutThrough() async throws {
        try await withAdsServer { _, admin in
            try await admin.campaign()
            let before = try await admin.adsRequests()
            let log = CallLog()
            let clock = TestClock()
            let banner = makeBanner(log: log, clock: clock)
            banner.load(Request())
            try await log.wait(for: 1)
            for _ in 0..<3 {
                banner.setVisibleFraction(1)
                banner.setVisibleFraction(0.2)
            }
            banner.setVisibleFraction(1)
            await clock.advance(by: .seconds(1))
            try await eventually("the viewable impression") { banner.controller.shown?.viewable ?? false }
            banner.setVisibleFraction(0)
            banner.setVisibleFraction(1)
            await clock.advance(by: .seconds(2))
            for _ in 0..<3 {
                #expect(banner.tap())
                banner.dismissPresentedScreen()
            }
            await banner.waitForEvents()
            // A decision, then an impression, a viewable impression and a click: four requests.
            try await eventually("four ads requests") { try await admin.adsRequests() - before >= 4 }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await admin.adsRequests() - before == 4)
        }
    }

    @Test func aFailedLoadGivesOnlyItsFailureWithGooglesCodes() async throws {
        try await withAdsServer { _, admin in
            try await admin.emptyUnit("ca-app-pub-3940256099942544/1111111111")
            @MainActor func failure(_ unit: String?, _ size: AdSize = AdSizeBanner) async throws -> (calls: [String], error: NSError?) {
                let log = CallLog()
                let banner = makeBanner(size, unit: unit ?? "", log: log, clock: TestClock())
                if unit == nil { banner.adUnitID = nil }
                banner.load(Request())
                try await log.wait(for: 1)
                banner.setVisibleFraction(1)
                #expect(!banner.tap())
                return (log.calls, log.errors.first)
            }
            let noFill = try await failure("ca-app-pub-3940256099942544/1111111111")
            #expect(noFill.calls == ["didFailToReceiveAd"])
            #expect(noFill.error?.domain == GADErrorDomain && noFill.error?.domain == "com.google.admob")
            #expect(noFill.error?.code == GADErrorCode.noFill.rawValue)
            #expect(try await failure("ca-app-pub-3940256099942544/2222222222").error?.code == GADErrorCode.invalidRequest.rawValue)
            #expect(try await failure(nil).error?.code == GADErrorCode.invalidRequest.rawValue)
            #expect(try await failure(seedUnit, AdSizeInvalid).error?.code == GADErrorCode.invalidRequest.rawValue)
            #expect(try await failure("not an ad unit").error?.code == GADErrorCode.invalidRequest.rawValue)
            #expect(try await admin.totals()["fills"] ?? 0 == 0)
        }
    }

    @Test(arguments: [
        (String?.some("HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n"), GADErrorCode.serverError),
        ("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\n{\"ad\": 7}", .receivedInvalidResponse),
        ("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello", .receivedInvalidResponse),
        (nil, .timeout),
    ])
    func serverAndNetworkFailuresMapToGooglesCodes(response: String?, code: GADErrorCode) async throws {
        let server = try await CannedHTTPServer(response: response)
        MobileAds.shared.useEmulator(withHost: "127.0.0.1", port: server.port)
        // Long enough for an answer on a busy machine; the silent server's case waits it out.
        MobileAds.shared.requestTimeout = response == nil ? .milliseconds(500) : .seconds(10)
        defer { MobileAds.shared.requestTimeout = .seconds(30) }
        let log = CallLog()
        let banner = makeBanner(log: log, clock: TestClock())
        banner.load(Request())
        try await log.wait(for: 1, within: 20)
        await server.close()
        #expect(log.calls == ["didFailToReceiveAd"])
        #expect(log.errors.first?.code == code.rawValue)
        #expect(log.errors.first is RequestError)
    }

    @Test func anUnreachableServerIsANetworkError() async throws {
        // Port 1 (tcpmux) has no listener: the connection is refused.
        MobileAds.shared.useEmulator(withHost: "127.0.0.1", port: 1)
        MobileAds.shared.requestTimeout = .seconds(10)
        let log = CallLog()
        let banner = makeBanner(log: log, clock: TestClock())
        banner.load(Request())
        try await log.wait(for: 1)
        #expect(log.errors.first?.code == GADErrorCode.networkError.rawValue)
    }

    @Test func theOldDelegateHearsItsOwnCallsAndALinkThatLeavesTheApp() async throws {
        try await withAdsServer { _, admin in
            try await admin.campaign(clickURL: "https://apps.apple.com/app/id1234567890")
            let old = OldDelegate()
            let banner = BannerView(adSize: kGADAdSizeBanner)
            banner.adUnitID = seedUnit
            banner.delegate = old
            banner.load(GADRequest())
            try await eventually("the ad") { old.calls.count >= 2 }
            banner.setVisibleFraction(1)
            #expect(banner.tap())
            #expect(banner.presentedPageURL == nil)
            #expect(banner.openedOutsideURL == "https://apps.apple.com/app/id1234567890")
            #expect(old.calls == ["bannerViewDidReceiveAd", "adViewDidReceiveAd", "adViewWillLeaveApplication"])
            await banner.waitForEvents()
            #expect(try await admin.totals()["clicks"] == 1)
        }
    }
}

/// A delegate written for the old SDK, which also implements one of today's methods.
@MainActor
final class OldDelegate: GADBannerViewDelegate {
    private(set) var calls: [String] = []

    func bannerViewDidReceiveAd(_ bannerView: BannerView) { calls.append("bannerViewDidReceiveAd") }
    func adViewDidReceiveAd(_ bannerView: GADBannerView) { calls.append("adViewDidReceiveAd") }
    func adView(_ bannerView: GADBannerView, didFailToReceiveAdWithError error: GADRequestError) { calls.append("adView:didFail") }
    func adViewWillPresentScreen(_ bannerView: GADBannerView) { calls.append("adViewWillPresentScreen") }
    func adViewWillLeaveApplication(_ bannerView: GADBannerView) { calls.append("adViewWillLeaveApplication") }
}
