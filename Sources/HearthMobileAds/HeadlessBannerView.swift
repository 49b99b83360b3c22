#if !os(iOS) && !os(macOS)
    import Foundation

    /// A banner ad, under the Google Mobile Ads SDK's name. Where there is no view system (Linux,
    /// servers, tests) it is headless: it keeps what it would draw (``renderedAd``) and takes
    /// how much of it is on screen and taps from the program, through the same state machine
    /// that drives the drawn banners of iOS and macOS.
    ///
    /// ```swift
    /// let banner = BannerView(adSize: AdSizeBanner)
    /// banner.adUnitID = "ca-app-pub-3940256099942544/2934735716"
    /// banner.delegate = self
    /// banner.load(Request())
    /// banner.setVisibleFraction(1)   // on screen: the impression is recorded
    /// banner.tap()                   // the click, and the ad's page presented
    /// ```
    @MainActor
    public final class BannerView {
        let controller: BannerController
        private var presented: String?
        private var opened: String?

        /// A banner of `adSize`.
        public init(adSize: AdSize) {
            controller = BannerController(adSize: adSize)
            controller.view = self
            controller.presentPage = { [weak self] url in self?.presented = url.absoluteString }
            controller.openOutside = { [weak self] url in self?.opened = url.absoluteString }
        }

        /// A banner of `adSize` at `origin`; headless banners have no position, so `origin` is
        /// not kept.
        public convenience init(adSize: AdSize, origin: CGPoint) {
            self.init(adSize: adSize)
        }

        /// The object that would present the ad's page (a view controller on iOS); kept weakly.
        public weak var rootViewController: AnyObject?

        /// What the banner would draw now: the creative and its frame, centred in the banner.
        public var renderedAd: RenderedAd? { controller.rendered }

        /// How much of the banner is on screen, from 0 to 1, as last set.
        public var visibleFraction: Double { controller.visibleFraction }

        /// Says how much of the banner is on screen, from 0 (hidden) to 1 (all of it): the
        /// impression is recorded when an ad is shown at more than 0, the viewable impression
        /// after one continuous second at 0.5 or more.
        public func setVisibleFraction(_ fraction: Double) {
            controller.setVisibleFraction(fraction)
        }

        /// A tap on the banner: records the click and presents the ad's page (or opens a link
        /// that leaves the app). Answers `false`, doing nothing, when no ad is on screen or a
        /// page is already presented.
        @discardableResult
        public func tap() -> Bool {
            controller.tap()
        }

        /// The page a tap presented over the app, until ``dismissPresentedScreen()``.
        public var presentedPageURL: String? { controller.presenting ? presented : nil }

        /// The last link a tap opened outside the app.
        public var openedOutsideURL: String? { opened }

        /// Closes the page a tap presented, as the user would.
        public func dismissPresentedScreen() {
            controller.screenDismissed()
        }

        /// Waits until the server has answered every event this banner recorded so far (or
        /// they were given up), so that a program can end without losing them.
        public func waitForEvents() async {
            await controller.eventsDelivered()
        }
    }
#endif
