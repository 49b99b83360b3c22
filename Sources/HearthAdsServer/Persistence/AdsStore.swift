import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the ads server keeps what must outlive it: the catalog (ad units, creatives,
/// campaigns), the key tokens are signed with, uploaded images, every event reported with the
/// counts it adds to, and the viewers' impressions of capped campaigns.
///
/// Two stores implement it: ``SQLiteAdsStore`` under the data directory, and
/// ``PostgresAdsStore`` in a cluster's PostgreSQL, written only by the node that owns the ads
/// service (``ClusteredAds``). Every write is durable once it returns.
protocol AdsStore: Sendable {
    /// The JSON records of `table` (``CatalogRecord/table``), in the order of their ids.
    func records(in table: String) async throws -> [String]
    /// Stores `record` as row `id` of `table` (``CatalogRecord/table``: `units`, `creatives`,
    /// `campaigns`), replacing the row of that id.
    func put(_ record: some Encodable & Sendable, id: String, in table: String) async throws
    func delete(id: String, from table: String) async throws

    /// The key tokens are signed with, made by the first start.
    func tokenKey() async throws -> SymmetricKey

    /// Records event `type` of `token` unless it was recorded already or is a viewable
    /// impression or a click of an ad without an impression; counts it unless `ledger` finds it
    /// past its campaign's limits, and the ledger learns of it in the same step. Durable once
    /// this returns: events that arrive together are committed together (``EventCommitter``).
    func record(_ type: AdEventType, of token: AdToken, campaign: Campaign?, ledger: DeliveryLedger) async throws -> AdEventOutcome

    /// What was delivered: each campaign's impressions and clicks, in all and on the UTC day of
    /// `now`; and the viewers' impressions of capped campaigns since `since`.
    func deliveries(now: Int64, viewsSince since: Int64) async throws -> AdDeliveries
    /// Forgets the viewers' impressions from before `time`.
    func forgetViews(before time: Int64) async throws
    /// Forgets the events recorded before hour `hour`: their tokens expired, so none can come
    /// again to be told from a first report. Their counts stay.
    func forgetEvents(before hour: Int64) async throws
    /// Adds `tally`'s requests, fills and invalid events to the counts, all or none of them.
    func add(_ tally: AdTally) async throws
    /// The counts from hour `from` to hour `to` (both included), summed by `period` and
    /// `group`; no event of a transaction yet to commit is in them.
    func report(from: Int64, to: Int64, period: AdReport.Period, group: AdReport.Group) async throws -> [AdReport.Row]

    /// Keeps `image`; one with the same bytes is kept already.
    func put(_ image: CreativeImage) async throws
    /// The image of hash `hash`, if one was uploaded.
    func image(hash: String) async throws -> CreativeImage?
    func deleteImage(hash: String) async throws

    /// Why the store cannot be written now, or `nil` when it can.
    func unavailability() async -> String?
    func close() async
}

extension AdsStore {
    /// Every unit, creative and campaign.
    func catalog() async throws -> AdCatalog {
        func decoded<Record: CatalogRecord>(_ type: Record.Type) async throws -> [Record] {
            try await records(in: Record.table).map { try JSONDecoder().decode(type, from: Data($0.utf8)) }
        }
        return AdCatalog(
            units: try await decoded(AdUnit.self), creatives: try await decoded(Creative.self),
            campaigns: try await decoded(Campaign.self))
    }
}

/// What became of an event reported.
enum AdEventOutcome: Sendable {
    /// Counted now, durably.
    case counted
    /// Counted before: a retry or a replay.
    case duplicate
    /// A viewable impression or a click of an ad whose impression was never reported: not
    /// counted.
    case withoutImpression
    /// Past its campaign's goal or the viewer's frequency cap: kept, so that its retries are
    /// duplicates, but not counted.
    case pastLimit
}

/// What was delivered before a start (``AdsStore/deliveries(now:viewsSince:)``).
struct AdDeliveries: Sendable {
    struct Figures: Sendable {
        var impressions = 0
        var clicks = 0
        var impressionsToday = 0
        var clicksToday = 0
    }

    var campaigns: [String: Figures] = [:]
    var views: [(viewer: String, campaign: String, time: Int64)] = []
}

enum AdsStoreError: Error, CustomStringConvertible {
    case corruptRow
    case unavailable(String)

    var description: String {
        switch self {
        case .corruptRow: "the ads store holds a row it cannot read"
        case .unavailable(let reason): "the ads store cannot be written: \(reason)"
        }
    }
}
