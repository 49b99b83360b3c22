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

    /// The campaign and creative chosen, or `nil` when nothing fills the slot. Reads the
    /// campaigns as ``verdicts(_:slot:in:ledger:now:)`` does, without recording why each is out.
    static func decide(
        _ request: AdRequest, slot: SlotRequest, in catalog: AdCatalog, ledger: DeliveryLedger, now: Int64,
        using random: inout some RandomNumberGenerator
    ) -> (campaign: Campaign, creative: Creative)? {
        let facts = RequestFacts(request)
        var eligible: [(entry: AdCatalog.Entry, creative: Int)] = []
        var total = 0
        for entry in catalog.campaignsByUnit[request.adUnitID] ?? [] {
            // Campaigns come highest priority first: once one is eligible, lower ones are not.
            if let first = eligible.first, entry.rank > first.entry.rank { break }
            guard case .eligible(let creative) = judge(entry, facts: facts, viewer: request.viewerKey, slot: slot, ledger: ledger, now: now)
            else { continue }
            eligible.append((entry, creative))
            total += entry.weight
        }
        guard total > 0 else { return nil }
        var point = Int.random(in: 0..<total, using: &random)
        for (entry, creative) in eligible {
            point -= entry.weight
            if point < 0 { return (entry.campaign, entry.creatives[creative]) }
        }
        return nil
    }

    /// Every campaign of the request's unit with why it would or would not fill the slot: the
    /// eligible ones (those of the highest priority among the live, targeted ones with a
    /// creative that fits) have no rejection.
    static func verdicts(
        _ request: AdRequest, slot: SlotRequest, in catalog: AdCatalog, ledger: DeliveryLedger, now: Int64
    ) -> [Verdict] {
        let facts = RequestFacts(request)
        var verdicts: [Verdict] = []
        var bestRank: Int?
        for entry in catalog.campaignsByUnit[request.adUnitID] ?? [] {
            var verdict = Verdict(campaign: entry.campaign)
            switch judge(entry, facts: facts, viewer: request.viewerKey, slot: slot, ledger: ledger, now: now) {
            case .rejected(let rejection):
                verdict.rejection = rejection
            case .eligible(let creative):
                verdict.creative = entry.creatives[creative]
                let rank = entry.rank
                if let bestRank, rank > bestRank {
                    verdict.rejection = .outranked(by: Campaign.Priority.allCases.first { $0.rank == bestRank } ?? .sponsorship)
                } else {
                    bestRank = rank
                }
            }
            verdicts.append(verdict)
        }
        return verdicts
    }

    private enum Judgement {
        /// It could, with the creative at this index of its entry's.
        case eligible(Int)
        case rejected(Rejection)
    }

    /// Whether one campaign could fill the slot, whatever the others.
    private static func judge(
        _ entry: AdCatalog.Entry, facts: RequestFacts, viewer: String?, slot: SlotRequest, ledger: DeliveryLedger, now: Int64
    ) -> Judgement {
        if entry.isPaused { return .rejected(.paused) }
        if let start = entry.window.start, now < start { return .rejected(.notStarted) }
        if let end = entry.window.end, now >= end { return .rejected(.ended) }
        if let targeting = entry.targeting, !targeting.matches(facts) { return .rejected(.notTargeted) }
        if entry.isLimited, let refusal = ledger.refusal(for: entry.campaign, window: entry.window, viewer: viewer, now: now) {
            return .rejected(refusal)
        }
        guard let creative = slot.bestCreative(of: entry.creatives) else { return .rejected(.noCreativeFits) }
        return .eligible(creative)
    }
}
