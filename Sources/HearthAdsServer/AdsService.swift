import Crypto
import HearthCore
import HearthSupport
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The ads server: decides which campaign fills a slot, counts the events of the ads it
/// served, and keeps the catalog of ad units, creatives and campaigns (``AdsStore``).
///
/// Decisions and events read the catalog from memory, without waiting for each other; admin
/// changes are applied one at a time, stored before they take effect.
package final class AdsService: Sendable {
    let store: any AdsStore
    private let catalog: Mutex<AdCatalog>
    private let key: SymmetricKey
    private let tally = SharedTally()
    private let changes = MutationQueue()
    /// What each campaign delivered and each viewer saw, for goals, pacing and caps.
    let ledger = DeliveryLedger()
    let clock: AdsClock
    let logger: Logger

    private init(store: any AdsStore, catalog: AdCatalog, key: SymmetricKey, clock: AdsClock, logger: Logger) {
        self.store = store
        self.catalog = Mutex(catalog)
        self.key = key
        self.clock = clock
        self.logger = logger
    }

    /// Opens (creating if needed) the ads store of `dataDirectory`, and reads back what was
    /// delivered; `clock` gives the time.
    package static func open(dataDirectory: String, clock: AdsClock, logger: Logger) async throws -> AdsService {
        try await open(
            store: try await SQLiteAdsStore.open(dataDirectory: dataDirectory, clock: clock, logger: logger), clock: clock, logger: logger)
    }

    /// The service of `store`, with what was delivered read back; the store is closed if that fails.
    static func open(store: any AdsStore, clock: AdsClock, logger: Logger) async throws -> AdsService {
        do {
            let service = AdsService(
                store: store, catalog: try await store.catalog(), key: try await store.tokenKey(), clock: clock, logger: logger)
            try await service.readDeliveries()
            return service
        } catch {
            await store.close()
            throw error
        }
    }

    /// How long a viewer's impressions are kept: the longest window a frequency cap may have.
    static let viewsKeptMilliseconds = Int64(FrequencyCap.maximumWindowSeconds) * 1000

    /// Adds what was counted in memory to the store, then closes it.
    package func close() async {
        await flush()
        await store.close()
    }

    package func unavailability() async -> String? {
        await store.unavailability()
    }

    var currentCatalog: AdCatalog { catalog.withLock { $0 } }

    // MARK: Decisions

    /// The ad that fills the slot `request` asks for, or `nil` when nothing does.
    func decide(_ request: AdRequest, now: Int64) throws(AdsError) -> ServedAd? {
        let slot = try request.slot()
        let catalog = currentCatalog
        guard let unit = catalog.units[request.adUnitID] else { throw .unknownAdUnit(request.adUnitID) }
        var random = SystemRandomNumberGenerator()
        let hour = AdReport.hour(of: now)
        guard let (campaign, creative) = AdDecider.decide(request, slot: slot, in: catalog, ledger: ledger, now: now, using: &random)
        else {
            tally.count(.init(hour: hour, campaignID: "", creativeID: "", adUnitID: unit.adUnitID)) { $0.requests += 1 }
            return nil
        }
        tally.count(.init(hour: hour, campaignID: campaign.campaignID, creativeID: creative.creativeID, adUnitID: unit.adUnitID)) {
            $0.requests += 1
            $0.fills += 1
        }
        let token = AdToken(
            id: Self.tokenID(at: now), campaignID: campaign.campaignID, creativeID: creative.creativeID, adUnitID: unit.adUnitID,
            viewerKey: request.viewerKey, expiresAt: now + AdToken.lifetimeMilliseconds)
        if campaign.goal?.metric == .impressions { ledger.served(token.id, campaign: campaign.campaignID, now: now) }
        return ServedAd(
            creative: creative, campaignID: campaign.campaignID, refreshSeconds: unit.refreshSeconds, token: token.signed(with: key),
            expiresAt: token.expiresAt)
    }

    /// Every campaign of the request's unit, with why it would or would not fill the slot.
    func explain(_ request: AdRequest, now: Int64) throws(AdsError) -> [AdDecider.Verdict] {
        let slot = try request.slot()
        let catalog = currentCatalog
        guard catalog.units[request.adUnitID] != nil else { throw .unknownAdUnit(request.adUnitID) }
        return AdDecider.verdicts(request, slot: slot, in: catalog, ledger: ledger, now: now)
    }

    // MARK: Events

    /// Counts event `type` of the ad `tokenText` was served with, unless it was counted already;
    /// whether it was counted now. A forged or expired token is refused, and counted as invalid;
    /// so is a viewable impression or a click of an ad whose impression was not reported, which
    /// is not counted. An event past its campaign's goal, or an impression past the viewer's
    /// frequency cap, is not counted either.
    func record(_ type: AdEventType, token tokenText: String, now: Int64) async throws -> Bool {
        let token: AdToken
        do {
            token = try AdToken.verify(tokenText, with: key, now: now)
        } catch {
            let hour = AdReport.hour(of: now)
            switch error {
            case .forged:
                tally.count(.init(hour: hour, campaignID: "", creativeID: "", adUnitID: "")) { $0.invalid += 1 }
                throw AdsError.invalidField(field: "token", reason: "not a token this server issued")
            case .expired(let token):
                tally.count(.init(hour: hour, campaignID: token.campaignID, creativeID: token.creativeID, adUnitID: token.adUnitID)) {
                    $0.invalid += 1
                }
                throw AdsError.invalidField(field: "token", reason: "the token expired")
            }
        }
        let campaign = currentCatalog.campaigns[token.campaignID]
        switch try await store.record(type, of: token, campaign: campaign, ledger: ledger) {
        case .counted: return true
        case .duplicate, .pastLimit: return false
        case .withoutImpression:
            tally.count(
                .init(hour: AdReport.hour(of: now), campaignID: token.campaignID, creativeID: token.creativeID, adUnitID: token.adUnitID)
            ) {
                $0.invalid += 1
            }
            return false
        }
    }

    /// Forgets the events too old for their tokens to come again (``AdToken/lifetimeMilliseconds``,
    /// with an hour's margin), and the viewers' impressions older than any cap looks back.
    func forgetExpiredEvents(now: Int64) async {
        do {
            try await store.forgetEvents(before: AdReport.hour(of: now - AdToken.lifetimeMilliseconds) - 1)
            try await store.forgetViews(before: now - Self.viewsKeptMilliseconds)
            ledger.forgetViews(before: now - Self.viewsKeptMilliseconds)
        } catch {
            logger.error("expired ads events could not be removed", metadata: ["error": "\(error)"])
        }
    }

    /// Sets the test clock (``AdsClock/set(to:)``), and reads the day's deliveries again for the
    /// day it is then.
    func setClock(to time: Int64?) async throws {
        try clock.set(to: time)
        try await readDeliveries()
    }

    /// Puts in the ledger what the store says was delivered, in all and on the clock's day, and
    /// what the viewers of capped campaigns saw.
    private func readDeliveries() async throws {
        let now = clock.now()
        ledger.restore(try await store.deliveries(now: now, viewsSince: now - Self.viewsKeptMilliseconds), now: now)
    }

    /// Adds the requests, fills and invalid events counted in memory to the store, and forgets
    /// the served ads whose impression was waited for too long.
    func flush() async {
        ledger.forgetStaleInFlight(now: clock.now())
        let taken = tally.take()
        guard !taken.isEmpty else { return }
        do {
            try await store.add(taken)
        } catch {
            tally.restore(taken)
            logger.error("ads counts could not be stored", metadata: ["error": "\(error)"])
        }
    }

    // MARK: The catalog

    /// Runs `change` on the catalog, one change at a time: it returns the new catalog after
    /// storing what it changed, and the catalog takes it only then.
    func change<Result: Sendable>(_ change: @Sendable (AdCatalog) async throws -> (AdCatalog, Result)) async throws -> Result {
        try await changes.run {
            let (changed, result) = try await change(currentCatalog)
            catalog.withLock { $0 = changed }
            return result
        }
    }

    /// A new id for a creative or a campaign: 16 random bytes in hex.
    static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode(bytes(of: generator.next(), generator.next()))
    }

    /// A new id for a decision's token: the time in milliseconds (6 bytes), then 10 random
    /// bytes, in hex. Ids made about the same time sort together, so that the events of the
    /// ads served lately, kept by id, are written into a few pages of the store, not one page
    /// each.
    static func tokenID(at now: Int64) -> String {
        var generator = SystemRandomNumberGenerator()
        let random = bytes(of: generator.next(), generator.next())
        return Hex.encode(bytes(of: UInt64(max(now, 0)) << 16).prefix(6) + random.prefix(10))
    }

    /// The bytes of `numbers`, most significant first.
    private static func bytes(of numbers: UInt64...) -> [UInt8] {
        numbers.flatMap { number in (0..<8).map { UInt8(truncatingIfNeeded: number >> (56 - 8 * $0)) } }
    }
}

/// What a decision serves: the creative, the campaign it came from, and the token its events
/// are reported with.
struct ServedAd: Sendable {
    var creative: Creative
    var campaignID: String
    var refreshSeconds: Int?
    var token: String
    var expiresAt: Int64
}
