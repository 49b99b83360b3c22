import AsyncHTTPClient
import Foundation
import HearthApp
import HearthTestSupport
import HearthTesting
import NIOCore
import NIOHTTP1

@testable import HearthMobileAds

/// The ad unit every test fills: the one the seed's code names.
let seedUnit = "ca-app-pub-3940256099942544/2934735716"

/// A test Hearth's ads admin API (`Bearer owner`, development mode).
struct AdsAdmin {
    let port: Int

    /// Creates the unit, one creative per size, and a campaign showing them on the unit.
    @discardableResult
    func campaign(
        unit: String = seedUnit, refreshSeconds: Int? = nil, sizes: [(Int, Int)] = [(320, 50)],
        clickURL: String = "https://example.com/sale"
    ) async throws -> [String] {
        _ = try await send(
            .POST, "adUnits", ["adUnitID": unit, "name": "Home", "refreshSeconds": refreshSeconds.map { $0 as Any } ?? NSNull()])
        var creatives: [String] = []
        for (w, h) in sizes {
            let made = try await send(
                .POST, "creatives",
                ["w": w, "h": h, "kind": "image", "imageURL": "https://example.com/\(w)x\(h).png", "clickURL": clickURL])
            creatives.append(made["creativeID"] as! String)
        }
        _ = try await send(
            .POST, "campaigns", ["name": "Sale", "priority": "house", "adUnitIDs": [unit], "creativeIDs": creatives])
        return creatives
    }

    /// Makes an ad unit that no campaign fills.
    func emptyUnit(_ unit: String) async throws {
        _ = try await send(.POST, "adUnits", ["adUnitID": unit, "name": "Empty"])
    }

    /// The counts of the last day, summed over campaigns.
    func totals() async throws -> [String: Int] {
        let report = try await send(.GET, "reports?group=campaign", nil)
        var totals: [String: Int] = [:]
        for row in report["rows"] as! [[String: Any]] {
            for name in ["requests", "fills", "impressions", "viewable", "clicks", "invalid"] {
                totals[name, default: 0] += row[name] as? Int ?? 0
            }
        }
        return totals
    }

    /// The ads requests the server answered so far (`hearth_http_requests_total` of product
    /// `ads` in `/metrics`).
    func adsRequests() async throws -> Int {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics")
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 24))
        return text.split(separator: "\n").filter { $0.hasPrefix("hearth_http_requests_total{") && $0.contains("product=\"ads\"") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0) { $0 + Int($1) }
    }

    private func send(_ method: HTTPMethod, _ path: String, _ body: [String: Any]?) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/ads/v1/admin/\(path)")
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer owner")
        if let body { request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body))) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code < 300 else { throw AdminRefused(status: response.status.code, body: String(buffer: bytes)) }
        return try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any] ?? [:]
    }

    struct AdminRefused: Error {
        let status: UInt
        let body: String
    }
}

/// Runs `body` with a fresh test Hearth, the SDK pointed at it.
@MainActor
func withAdsServer(_ body: @MainActor (TestHearth, AdsAdmin) async throws -> Void) async throws {
    _ = sdkUserDataDirectory
    let server = try await TestHearth.start(projectID: "demo-ads")
    MobileAds.shared.useEmulator(withHost: TestHearth.host, port: server.port)
    MobileAds.shared.requestTimeout = .seconds(30)
    do {
        try await body(server, AdsAdmin(port: server.port))
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Waits, without a clock of its own, for `condition` to hold.
@MainActor
func eventually(_ what: String, within seconds: Double = 10, _ condition: @MainActor () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw TimedOut(what: what)
}

/// A delegate of today's protocol that writes down each call.
@MainActor
final class CallLog: BannerViewDelegate {
    private(set) var calls: [String] = []
    private(set) var errors: [NSError] = []

    func bannerViewDidReceiveAd(_ bannerView: BannerView) { calls.append("didReceiveAd") }
    func bannerView(_ bannerView: BannerView, didFailToReceiveAdWithError error: any Error) {
        calls.append("didFailToReceiveAd")
        errors.append(error as NSError)
    }
    func bannerViewDidRecordImpression(_ bannerView: BannerView) { calls.append("didRecordImpression") }
    func bannerViewDidRecordClick(_ bannerView: BannerView) { calls.append("didRecordClick") }
    func bannerViewWillPresentScreen(_ bannerView: BannerView) { calls.append("willPresentScreen") }
    func bannerViewWillDismissScreen(_ bannerView: BannerView) { calls.append("willDismissScreen") }
    func bannerViewDidDismissScreen(_ bannerView: BannerView) { calls.append("didDismissScreen") }

    /// Lets whatever is under way finish, then says whether no call came meanwhile.
    func staysQuiet(for seconds: Double = 0.3) async throws -> Bool {
        let count = calls.count
        try await Task.sleep(for: .seconds(seconds))
        return calls.count == count
    }

    /// Waits until `count` calls were made.
    func wait(for count: Int, within seconds: Double = 10) async throws {
        try await eventually("\(count) delegate calls; got \(calls)", within: seconds) { calls.count >= count }
    }
}

/// A banner of `size` on `unit`, its delegate `log`, timed by `clock`.
@MainActor
func makeBanner(_ size: AdSize = AdSizeBanner, unit: String = seedUnit, log: CallLog, clock: TestClock) -> BannerView {
    let banner = BannerView(adSize: size)
    banner.adUnitID = unit
    banner.delegate = log
    banner.controller.clock = BannerClock(clock)
    return banner
}
