import Foundation
import Testing

@testable import HearthMobileAds

@Suite struct AdSizeTests {
    @Test func standardSizesAreGooglesAndTheOldNamesAreTheSame() {
        #expect(AdSizeBanner.size == CGSize(width: 320, height: 50))
        #expect(AdSizeLargeBanner.size == CGSize(width: 320, height: 100))
        #expect(AdSizeMediumRectangle.size == CGSize(width: 300, height: 250))
        #expect(AdSizeFullBanner.size == CGSize(width: 468, height: 60))
        #expect(AdSizeLeaderboard.size == CGSize(width: 728, height: 90))
        #expect(kGADAdSizeBanner == AdSizeBanner)
        #expect(kGADAdSizeLeaderboard == AdSizeLeaderboard)
        #expect(GADAdSizeFromCGSize(CGSize(width: 250, height: 250)) == adSizeFor(cgSize: CGSize(width: 250, height: 250)))
        #expect(!isAdSizeValid(AdSizeInvalid))
        #expect(!isAdSizeValid(adSizeFor(cgSize: CGSize(width: 320, height: 0))))
        #expect(isAdSizeValid(kGADAdSizeSmartBannerPortrait))
    }

    @Test(arguments: [(CGFloat(400), CGFloat(32)), (401, 50), (720, 50), (721, 90), (1024, 90)])
    func smartBannersAre32Or50Or90HighByScreenHeight(screenHeight: CGFloat, height: CGFloat) {
        #expect(smartBannerHeight(screenHeight: screenHeight) == height)
    }

    @Test func smartBannersSpanTheScreenHeldTheirWay() {
        let phone = CGSize(width: 390, height: 844)
        #expect(kGADAdSizeSmartBannerPortrait.resolved(screen: phone) == CGSize(width: 390, height: 90))
        #expect(kGADAdSizeSmartBannerLandscape.resolved(screen: phone) == CGSize(width: 844, height: 32))
        let small = CGSize(width: 320, height: 568)
        #expect(kGADAdSizeSmartBannerPortrait.resolved(screen: small) == CGSize(width: 320, height: 50))
        #expect(kGADAdSizeSmartBannerLandscape.resolved(screen: small) == CGSize(width: 568, height: 32))
        #expect(AdSizeMediumRectangle.resolved(screen: phone) == CGSize(width: 300, height: 250))
    }

    @Test func anchoredAdaptiveBannersAre50PerWidthOf320Within50And90Or15PercentOfTheScreen() {
        func height(_ width: CGFloat, screen: CGFloat) -> CGFloat {
            anchoredAdaptive(width: width, screenHeight: screen, heightPer320: 50, ceiling: 90, screenShare: 0.15).size.height
        }
        #expect(height(320, screen: 844) == 50)
        #expect(height(390, screen: 844) == 61)
        #expect(height(728, screen: 1024) == 90)
        #expect(height(728, screen: 400) == 60)
        #expect(height(200, screen: 844) == 50)
        #expect(height(728, screen: 300) == 50)
        #expect(anchoredAdaptive(width: 0, screenHeight: 844, heightPer320: 50, ceiling: 90, screenShare: 0.15) == AdSizeInvalid)
    }
}
