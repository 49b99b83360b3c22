/// The ad units, creatives and campaigns in force, as one immutable value: decisions read it
/// without locks, and an admin change replaces it whole.
struct AdCatalog: Sendable {
    private(set) var units: [String: AdUnit] = [:]
    private(set) var creatives: [String: Creative] = [:]
    private(set) var campaigns: [String: Campaign] = [:]
    /// The campaigns naming each unit, highest priority first, read for decisions.
    private(set) var campaignsByUnit: [String: [Entry]] = [:]

    /// A campaign as decisions read it: its window in milliseconds, its targeting compiled, its
    /// creatives, all read once when the catalog changes. A class, so that a decision walking a
    /// thousand of them copies none.
    final class Entry: Sendable {
        let campaign: Campaign
        let window: (start: Int64?, end: Int64?)
        let targeting: CompiledTargeting?
        let creatives: [Creative]
        /// Whether it has a goal or a frequency cap, which the ledger decides.
        let isLimited: Bool
        let isPaused: Bool
        let rank: Int
        let weight: Int

        init(_ campaign: Campaign, creatives: [Creative]) {
            self.campaign = campaign
            self.isPaused = campaign.status == .paused
            self.rank = campaign.priority.rank
            self.weight = campaign.weight
            self.window = campaign.window
            self.targeting = campaign.targeting.map(CompiledTargeting.init)
            self.creatives = creatives
            self.isLimited = campaign.goal != nil || campaign.frequencyCap != nil
        }
    }

    init(units: [AdUnit], creatives: [Creative], campaigns: [Campaign]) {
        self.units = Dictionary(units.map { ($0.adUnitID, $0) }, uniquingKeysWith: { $1 })
        self.creatives = Dictionary(creatives.map { ($0.creativeID, $0) }, uniquingKeysWith: { $1 })
        self.campaigns = Dictionary(campaigns.map { ($0.campaignID, $0) }, uniquingKeysWith: { $1 })
        index()
    }

    mutating func put(_ unit: AdUnit) { units[unit.adUnitID] = unit }
    mutating func removeUnit(_ id: String) { units[id] = nil }
    mutating func put(_ creative: Creative) {
        creatives[creative.creativeID] = creative
        index()
    }

    mutating func removeCreative(_ id: String) {
        creatives[id] = nil
        index()
    }

    mutating func put(_ campaign: Campaign) {
        campaigns[campaign.campaignID] = campaign
        index()
    }

    mutating func removeCampaign(_ id: String) {
        campaigns[id] = nil
        index()
    }

    /// The campaigns that name `unitID` or `creativeID`, so that neither is removed from under them.
    func campaigns(using unitID: String? = nil, creative creativeID: String? = nil) -> [String] {
        campaigns.values.filter { campaign in
            unitID.map(campaign.adUnitIDs.contains) == true || creativeID.map(campaign.creativeIDs.contains) == true
        }.map(\.campaignID).sorted()
    }

    private mutating func index() {
        var byUnit: [String: [Entry]] = [:]
        for campaign in campaigns.values.sorted(by: { ($0.priority.rank, $0.campaignID) < ($1.priority.rank, $1.campaignID) }) {
            let entry = Entry(campaign, creatives: campaign.creativeIDs.compactMap { creatives[$0] })
            for unit in Set(campaign.adUnitIDs) { byUnit[unit, default: []].append(entry) }
        }
        campaignsByUnit = byUnit
    }
}
