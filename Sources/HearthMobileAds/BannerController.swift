import Foundation

/// A banner's state machine, the same on every platform: loading, what is shown, when its
/// impression, viewable impression and click are recorded, refreshing, and the page a tap
/// presents. The view feeds it how much of the banner is on screen, whether the creative is
/// drawn, and taps; it calls the view's delegate and reports events to the server.
///
/// - An impression is recorded when an ad's creative is drawn and any of the banner is on
///   screen, once per ad.
/// - A viewable impression is recorded when at least half of the banner stays on screen, drawn,
///   for one continuous second (the MRC's standard for display ads), once per ad.
/// - A refresh falls due `refreshSeconds` after the ad's impression (or after a refresh that
///   failed) and happens only while the banner is on screen and no page of its is presented; a
///   refresh under way when a page is presented is put off until the page closes, and one that
///   fails keeps the ad shown.
/// - ``load(_:refreshing:)`` silences everything before it: an answer to an earlier load is
///   dropped, and the ad shown is taken down with its timers. A delegate may call it from any
///   callback.
/// - A banner's events reach the server in the order they happened (a click never before its
///   impression); each is tried again while the server cannot be reached, for about a minute.
@MainActor
final class BannerController {
    /// The view the delegate is told about.
    weak var view: BannerView?
    var adUnitID: String?
    var adSize: AdSize {
        didSet { onResize() }
    }
    weak var delegate: (any BannerViewDelegate)?
    /// The clock refreshes and viewability are timed by (a test's clock in tests).
    var clock = BannerClock(ContinuousClock())
    /// Called once an ad is shown or taken down, for views that draw it.
    var onChange: () -> Void = {}
    /// Called when ``adSize`` changes, for views that size themselves by it.
    var onResize: () -> Void = {}
    /// Shows a page over the app (`http` and `https` click URLs); the view calls
    /// ``screenDismissed()`` when it closes.
    var presentPage: (URL) -> Void = { _ in }
    /// Opens a link that leaves the app.
    var openOutside: (URL) -> Void = { _ in }
    /// Whether every ad link leaves the app (on the Mac, where there is no page to present).
    var everyLinkLeavesApplication = false

    /// The ad shown, and what was recorded of it.
    private(set) var shown: Shown?
    /// Where the last ad shown came from.
    private(set) var responseInfo: ResponseInfo?
    /// How much of the banner is on screen, from 0 to 1.
    private(set) var visibleFraction: Double = 0
    /// Whether the shown ad's creative is drawn (views that fetch an image say when it is).
    private(set) var creativeDrawn = false
    /// Whether a page a tap opened is over the app.
    private(set) var presenting = false

    /// Counts loads and ads shown: an answer, timer or callback of an earlier one is dropped.
    private var generation = 0
    private var loading: Task<Void, Never>?
    private var refreshInFlight = false
    private var refreshTimer: Task<Void, Never>?
    private var viewableTimer: Task<Void, Never>?
    private var refreshDue = false
    private var lastRequest: Request?
    /// The last event report, which the next one waits for.
    private var reports: Task<Void, Never>?

    /// An ad shown in a slot of `slot` points.
    struct Shown {
        let ad: ServedAd
        let slot: CGSize
        var impression = false
        var viewable = false
        var clicked = false
    }

    init(adSize: AdSize) {
        self.adSize = adSize
    }

    /// What the banner draws: the ad's creative centred in the slot it was asked for.
    var rendered: RenderedAd? {
        guard let shown else { return nil }
        let ad = shown.ad
        let frame = CGRect(
            x: ((shown.slot.width - CGFloat(ad.w)) / 2).rounded(.down), y: ((shown.slot.height - CGFloat(ad.h)) / 2).rounded(.down),
            width: CGFloat(ad.w), height: CGFloat(ad.h))
        return RenderedAd(
            creativeID: ad.creativeID, campaignID: ad.campaignID, kind: ad.kind.rawValue, imageURL: ad.imageURL, html: ad.html,
            clickURL: ad.clickURL, frame: frame)
    }

    /// Asks for an ad; what is shown is taken down unless this is a refresh.
    func load(_ request: Request?, refreshing: Bool = false) {
        generation += 1
        let current = generation
        loading?.cancel()
        refreshTimer?.cancel()
        refreshTimer = nil
        refreshDue = false
        refreshInFlight = refreshing
        lastRequest = request
        if !refreshing {
            viewableTimer?.cancel()
            viewableTimer = nil
            shown = nil
            responseInfo = nil
            creativeDrawn = false
            onChange()
        }
        let slot = adSize.resolved(screen: DeviceScreen.size)
        let prepared = prepare(request, slot: slot)
        loading = Task { @MainActor [weak self] in
            let outcome: Result<AdsServerClient.Decision, RequestError>
            do throws(RequestError) {
                let (client, body) = try prepared.get()
                outcome = .success(try await client.decide(body))
            } catch {
                outcome = .failure(error)
            }
            guard let self, current == self.generation else { return }
            self.loading = nil
            self.refreshInFlight = false
            switch outcome {
            case .success(.ad(let ad)): self.receive(ad, slot: slot)
            case .success(.noFill): self.fail(.ads(.noFill, "Request Error: No ad to show."))
            case .failure(let error): self.fail(error)
            }
        }
    }

    /// The client and body of a decide request, or why there can be none.
    private func prepare(_ request: Request?, slot: CGSize) -> Result<(AdsServerClient, [String: any Sendable]), RequestError> {
        guard let adUnitID, !adUnitID.isEmpty else {
            return .failure(.ads(.invalidRequest, "Invalid Request: the banner has no adUnitID."))
        }
        guard isAdSizeValid(adSize), slot.width >= 1, slot.height >= 1 else {
            return .failure(.ads(.invalidRequest, "Invalid Request: invalid ad size."))
        }
        guard let origin = MobileAds.shared.serverOrigin else {
            return .failure(
                .ads(
                    .invalidRequest,
                    "Invalid Request: no Hearth server; call MobileAds.shared.useEmulator(withHost:port:) or configure a FirebaseApp with a databaseURL."
                ))
        }
        var body: [String: any Sendable] = [
            "adUnitID": adUnitID, "platform": DeviceFacts.platform, "osVersion": DeviceFacts.osVersion,
            "viewerKey": DeviceFacts.viewerKey,
        ]
        let (width, height) = (Int(slot.width), Int(slot.height))
        if adSize.isFlexible {
            body["adaptive"] = ["width": width, "maxHeight": height]
        } else {
            body["size"] = ["w": width, "h": height]
        }
        if let appVersion = DeviceFacts.appVersion { body["appVersion"] = appVersion }
        if let locale = DeviceFacts.locale { body["locale"] = locale }
        if let keywords = request?.keywords, !keywords.isEmpty { body["keywords"] = keywords }
        if let contentURL = request?.contentURL { body["contentURL"] = contentURL }
        return .success((AdsServerClient(origin: origin, timeout: MobileAds.shared.requestTimeout), body))
    }

    private func receive(_ ad: ServedAd, slot: CGSize) {
        generation += 1
        let current = generation
        viewableTimer?.cancel()
        viewableTimer = nil
        shown = Shown(ad: ad, slot: slot)
        responseInfo = ResponseInfo(ad)
        creativeDrawn = true
        notify({ $0.bannerViewDidReceiveAd($1) }, old: { $0.adViewDidReceiveAd($1) })
        guard current == generation else { return }
        // A view that fetches the creative says it is not drawn yet, and when it is.
        onChange()
        guard current == generation else { return }
        visibilityChanged()
    }

    private func fail(_ error: RequestError) {
        notify({ $0.bannerView($1, didFailToReceiveAdWithError: error) }, old: { $0.adView($1, didFailToReceiveAdWithError: error) })
        // A refresh that failed keeps its ad and tries again at the next interval.
        if let shown, shown.impression, refreshTimer == nil, loading == nil { scheduleRefresh(after: shown.ad.refreshSeconds) }
    }

    /// Takes how much of the banner is on screen now (0 to 1).
    func setVisibleFraction(_ fraction: Double) {
        visibleFraction = min(1, max(0, fraction.isNaN ? 0 : fraction))
        visibilityChanged()
    }

    /// Takes whether the shown ad's creative is drawn: a view fetching an image says `false`
    /// when it starts and `true` once the image is on the view.
    func setCreativeDrawn(_ drawn: Bool) {
        creativeDrawn = drawn && shown != nil
        visibilityChanged()
    }

    private func visibilityChanged() {
        let current = generation
        let seen = creativeDrawn ? visibleFraction : 0
        if var shown, seen > 0, !shown.impression {
            shown.impression = true
            self.shown = shown
            report("impression", of: shown.ad)
            scheduleRefresh(after: shown.ad.refreshSeconds)
            notify({ $0.bannerViewDidRecordImpression($1) })
            guard current == generation else { return }
        }
        if seen >= 0.5 {
            if let shown, !shown.viewable, viewableTimer == nil { startViewableTimer(for: shown.ad) }
        } else {
            viewableTimer?.cancel()
            viewableTimer = nil
        }
        if visibleFraction > 0, refreshDue, !presenting { load(lastRequest, refreshing: true) }
    }

    private func startViewableTimer(for ad: ServedAd) {
        let current = generation
        let oneSecond = clock.sleeper(for: .seconds(1))
        viewableTimer = Task { @MainActor [weak self] in
            do { try await oneSecond() } catch { return }
            guard let self, current == self.generation, var shown = self.shown, !shown.viewable, self.creativeDrawn,
                self.visibleFraction >= 0.5
            else { return }
            shown.viewable = true
            self.shown = shown
            self.viewableTimer = nil
            self.report("viewable", of: ad)
        }
    }

    /// Puts the next refresh `seconds` from now (clamped to the 30 to 150 seconds an ad unit
    /// may say); none when `seconds` is `nil`.
    private func scheduleRefresh(after seconds: Int?) {
        refreshTimer?.cancel()
        refreshTimer = nil
        guard let seconds else { return }
        let interval = clock.sleeper(for: .seconds(min(150, max(30, seconds))))
        let current = generation
        refreshTimer = Task { @MainActor [weak self] in
            do { try await interval() } catch { return }
            guard let self, current == self.generation else { return }
            self.refreshTimer = nil
            self.refreshDue = true
            self.visibilityChanged()
        }
    }

    /// A tap on the banner: records the click (once per ad), then presents the ad's page or
    /// opens its link outside the app. Answers whether there was an ad on screen to tap.
    func tap() -> Bool {
        guard var shown, creativeDrawn, visibleFraction > 0, !presenting else { return false }
        let current = generation
        let ad = shown.ad
        if !shown.clicked {
            shown.clicked = true
            self.shown = shown
            report("click", of: ad)
            notify({ $0.bannerViewDidRecordClick($1) })
            guard current == generation else { return true }
        }
        guard let url = URL(string: ad.clickURL) else { return true }
        if everyLinkLeavesApplication || ad.clickLeavesApplication {
            notify({ _, _ in }, old: { $0.adViewWillLeaveApplication($1) })
            guard current == generation else { return true }
            openOutside(url)
            return true
        }
        presenting = true
        if refreshInFlight {
            // Its ad would land under the page: it happens once the page closes.
            loading?.cancel()
            loading = nil
            refreshInFlight = false
            generation += 1
            refreshDue = true
        }
        let presented = generation
        notify({ $0.bannerViewWillPresentScreen($1) }, old: { $0.adViewWillPresentScreen($1) })
        guard presented == generation, presenting else {
            // The delegate loaded again: the page of the ad taken down is not shown.
            presenting = false
            return true
        }
        presentPage(url)
        return true
    }

    /// The page a tap presented closed; a refresh that fell due meanwhile happens now.
    func screenDismissed() {
        guard presenting else { return }
        notify({ $0.bannerViewWillDismissScreen($1) }, old: { $0.adViewWillDismissScreen($1) })
        presenting = false
        notify({ $0.bannerViewDidDismissScreen($1) }, old: { $0.adViewDidDismissScreen($1) })
        visibilityChanged()
    }

    /// Reports an event after every earlier one of this banner.
    private func report(_ type: String, of ad: ServedAd) {
        guard let origin = MobileAds.shared.serverOrigin else { return }
        let client = AdsServerClient(origin: origin, timeout: MobileAds.shared.requestTimeout)
        let previous = reports
        reports = Task {
            await previous?.value
            await client.report(type, token: ad.token)
        }
    }

    /// Waits until every event reported so far has been answered or given up.
    func eventsDelivered() async {
        await reports?.value
    }

    private func notify(
        _ call: (any BannerViewDelegate, BannerView) -> Void, old: ((any GADBannerViewDelegate, BannerView) -> Void)? = nil
    ) {
        guard let view, let delegate else { return }
        call(delegate, view)
        if let old, let legacy = delegate as? any GADBannerViewDelegate { old(legacy, view) }
    }
}

/// The clock a banner's timers run on: any clock, its sleeps' deadlines taken when they are set
/// (not when the task that sleeps gets to run).
struct BannerClock: Sendable {
    /// Makes a sleep until `duration` from now.
    let sleeper: @Sendable (Duration) -> @Sendable () async throws -> Void

    init<C: Clock<Duration>>(_ clock: C) {
        sleeper = { duration in
            let deadline = clock.now.advanced(by: duration)
            return { try await clock.sleep(until: deadline, tolerance: nil) }
        }
    }

    func sleeper(for duration: Duration) -> @Sendable () async throws -> Void {
        sleeper(duration)
    }
}
