/// Picks the campaign and creative that fill a slot: among the campaigns of the ad unit that are
/// live, targeted at the request and have a creative that fits, those of the highest priority;
/// among them one at random in proportion to its weight.
enum AdDecider {
    /// Why a campaign does not fill a slot.
    enum Rejection: Equatable, Sendable, CustomStringConvertible {
        case paused
        case notStarted
        case ended
        case notTargeted
        case noCreativeFits
        /// Its goal is delivered (in all, or today).
        case goalReached
        /// It delivered what its pace allows so far.
        case aheadOfPace
        /// The viewer saw it as often, or as lately, as its frequency cap allows.
        case frequencyCapped
        /// It has a frequency cap, and the request names no viewer.
        case viewerUnknown
        case outranked(by: Campaign.Priority)

        var description: String {
            switch self {
            case .paused: "paused"
            case .notStarted: "not started yet"
            case .ended: "ended"
            case .notTargeted: "the request is not in its targeting"
            case .noCreativeFits: "none of its creatives fits the slot"
            case .goalReached: "its goal is delivered"
            case .aheadOfPace: "it is ahead of the pace of its goal"
            case .frequencyCapped: "the viewer reached its frequency cap"
            case .viewerUnknown: "it has a frequency cap and the request names no viewer"
            case .outranked(let priority): "a \(priority.rawValue) campaign fills the slot first"
            }
        }
    }

    /// A campaign's fate in one decision.
    struct Verdict: Sendable {
        var campaign: Campaign
        /// The creative it would show, when it is eligible.
        var creative: Creative?
        var rejection: Rejection?
    }

    /// The campaign and creative chosen, or `nil` when nothing fills the slot.
    static func decide(
        _ request: AdRequest, slot: SlotRequest, in catalog: AdCatalog, ledger: DeliveryLedger, now: Int64,
        using random: inout some RandomNumberGenerator
    ) -> (campaign: Campaign, creative: Creative)? {
        let eligible = verdicts(request, slot: slot, in: catalog, ledger: ledger, now: now).filter { $0.rejection == nil }
        let total = eligible.reduce(0) { $0 + $1.campaign.weight }
        guard total > 0 else { return nil }
        var point = Int.random(in: 0..<total, using: &random)
        for verdict in eligible {
            point -= verdict.campaign.weight
            if point < 0, let creative = verdict.creative { return (verdict.campaign, creative) }
        }
        return nil
    }

    /// Every campaign of the request's unit with why it would or would not fill the slot: the
    /// eligible ones (those of the highest priority among the live, targeted ones with a
    /// creative that fits) have no rejection.
    static func verdicts(
        _ request: AdRequest, slot: SlotRequest, in catalog: AdCatalog, ledger: DeliveryLedger, now: Int64
    ) -> [Verdict] {
        var verdicts: [Verdict] = []
        var bestRank: Int?
        for campaign in catalog.campaignsByUnit[request.adUnitID] ?? [] {
            var verdict = Verdict(campaign: campaign)
            let window = catalog.windows[campaign.campaignID] ?? (nil, nil)
            let (start, end) = window
            if campaign.status == .paused {
                verdict.rejection = .paused
            } else if let start, now < start {
                verdict.rejection = .notStarted
            } else if let end, now >= end {
                verdict.rejection = .ended
            } else if let targeting = campaign.targeting, !targeting.matches(request) {
                verdict.rejection = .notTargeted
            } else if let refusal = ledger.refusal(for: campaign, window: window, viewer: request.viewerKey, now: now) {
                verdict.rejection = refusal
            } else if let creative = slot.bestCreative(of: campaign.creativeIDs.compactMap { catalog.creatives[$0] }) {
                verdict.creative = creative
                // Campaigns come highest priority first: the first eligible sets the rank.
                if let bestRank, campaign.priority.rank > bestRank {
                    verdict.rejection = .outranked(by: Campaign.Priority.allCases.first { $0.rank == bestRank } ?? .sponsorship)
                } else {
                    bestRank = campaign.priority.rank
                }
            } else {
                verdict.rejection = .noCreativeFits
            }
            verdicts.append(verdict)
        }
        return verdicts
    }
}
