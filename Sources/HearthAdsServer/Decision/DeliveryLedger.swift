import Synchronization

/// What each campaign delivered and each viewer was shown, counted events only: the goals,
/// their pacing and the frequency caps are decided from it. Kept in memory, rebuilt from the
/// store at start (``AdsStore/deliveries(now:viewsSince:)``), and changed only inside the
/// store's transaction for an event (``EventCommitter``), so that the check that an event is
/// within its limits and its counting are one step.
final class DeliveryLedger: Sendable {
    /// How many of one metric a campaign delivered.
    struct Totals: Sendable {
        var lifetime = 0
        /// The UTC day (days since 1970) `today` counts.
        var day: Int64 = 0
        var today = 0

        func onDay(_ day: Int64) -> Int { self.day == day ? today : 0 }

        mutating func remove(on day: Int64) {
            lifetime -= 1
            if self.day == day { today -= 1 }
        }

        /// Counts one on `day`; a day before the one counted adds to the lifetime only.
        mutating func add(on day: Int64) {
            lifetime += 1
            if day > self.day { (self.day, today) = (day, 0) }
            if day == self.day { today += 1 }
        }
    }

    private struct State {
        var impressions: [String: Totals] = [:]
        var clicks: [String: Totals] = [:]
        /// Per campaign, the tokens served and not yet seen, with when: reserved against the pace
        /// of an impressions goal until ``inFlightMilliseconds`` have passed; the next
        /// ``forgetStaleInFlight(now:)`` forgets them.
        var inFlight: [String: Reservations] = [:]
        /// Per viewer and campaign, the times of the impressions counted, oldest first.
        var views: [String: [String: [Int64]]] = [:]
    }

    private let state = Mutex(State())

    /// How long a served ad's impression is waited for before its slot no longer counts against
    /// the pace.
    static let inFlightMilliseconds: Int64 = 30_000
    static let dayMilliseconds: Int64 = 86_400_000

    static func day(of time: Int64) -> Int64 { time / dayMilliseconds }

    // MARK: Serving

    /// Why `campaign` may not be served to `viewer` at `now`, or `nil` when it may.
    func refusal(for campaign: Campaign, window: (start: Int64?, end: Int64?), viewer: String?, now: Int64) -> AdDecider.Rejection? {
        guard campaign.goal != nil || campaign.frequencyCap != nil else { return nil }
        return state.withLock { state in
            if let goal = campaign.goal {
                let totals = (goal.metric == .impressions ? state.impressions : state.clicks)[campaign.campaignID] ?? Totals()
                let reserved =
                    goal.metric == .impressions
                    ? state.inFlight[campaign.campaignID]?.count(now: now, lifetime: Self.inFlightMilliseconds) ?? 0 : 0
                let day = Self.day(of: now)
                if let lifetime = goal.lifetime, let start = window.start, let end = window.end {
                    if totals.lifetime >= lifetime { return .goalReached }
                    if totals.lifetime + reserved >= Self.paced(lifetime, from: start, to: end, at: now) { return .aheadOfPace }
                }
                if let daily = goal.daily {
                    let today = totals.onDay(day)
                    if today >= daily { return .goalReached }
                    // Paced over the part of the day the campaign runs.
                    let dayStart = day * Self.dayMilliseconds
                    let from = max(dayStart, window.start ?? dayStart)
                    let to = min(dayStart + Self.dayMilliseconds, window.end ?? .max)
                    if today + reserved >= Self.paced(daily, from: from, to: to, at: now) { return .aheadOfPace }
                }
            }
            if let cap = campaign.frequencyCap {
                guard let viewer else { return .viewerUnknown }
                let times = Self.recent(state.views[viewer]?[campaign.campaignID] ?? [], cap: cap, now: now)
                if times.count >= cap.impressions { return .frequencyCapped }
                if let last = times.last, let apart = cap.minimumSecondsApart, now - last < Int64(apart) * 1000 {
                    return .frequencyCapped
                }
            }
            return nil
        }
    }

    /// How many of `goal` may have been delivered by `now`, paced evenly from `start` to `end`:
    /// one more than the share of the time gone, so that the first can be served at once.
    static func paced(_ goal: Int, from start: Int64, to end: Int64, at now: Int64) -> Int {
        guard end > start else { return goal }
        let share = Double(min(max(now - start, 0), end - start)) / Double(end - start)
        return min(goal, Int((Double(goal) * share).rounded(.up)) + 1)
    }

    private static func recent(_ times: [Int64], cap: FrequencyCap, now: Int64) -> [Int64] {
        times.filter { now - $0 < Int64(cap.windowSeconds) * 1000 }
    }

    /// Records that `token` was served for a campaign with an impressions goal.
    func served(_ token: String, campaign: String, now: Int64) {
        state.withLock { $0.inFlight[campaign, default: Reservations()].add(token, at: now) }
    }

    // MARK: Counting

    /// Whether event `type` of `token` is within its campaign's goal and frequency cap.
    func admits(_ type: AdEventType, of token: AdToken, campaign: Campaign?, now: Int64) -> Bool {
        guard let campaign else { return true }
        return state.withLock { state in
            let day = Self.day(of: now)
            if let goal = campaign.goal, (goal.metric == .impressions && type == .impression) || (goal.metric == .clicks && type == .click)
            {
                let totals = (goal.metric == .impressions ? state.impressions : state.clicks)[campaign.campaignID] ?? Totals()
                if let lifetime = goal.lifetime, totals.lifetime >= lifetime { return false }
                if let daily = goal.daily, totals.onDay(day) >= daily { return false }
            }
            if type == .impression, let cap = campaign.frequencyCap {
                guard let viewer = token.viewerKey else { return false }
                let times = Self.recent(state.views[viewer]?[campaign.campaignID] ?? [], cap: cap, now: now)
                if times.count >= cap.impressions { return false }
                if let last = times.max(), let apart = cap.minimumSecondsApart, now - last < Int64(apart) * 1000 { return false }
            }
            return true
        }
    }

    /// Records event `type` of `token`, counted at `now`; `capped` when its campaign has a
    /// frequency cap (the viewer's impressions are kept only then).
    func counted(_ type: AdEventType, of token: AdToken, capped: Bool, now: Int64) {
        state.withLock { state in
            let day = Self.day(of: now)
            switch type {
            case .impression:
                state.impressions[token.campaignID, default: Totals()].add(on: day)
                state.inFlight[token.campaignID]?.remove(token.id)
                if capped, let viewer = token.viewerKey { state.views[viewer, default: [:]][token.campaignID, default: []].append(now) }
            case .click:
                state.clicks[token.campaignID, default: Totals()].add(on: day)
            case .viewable:
                break
            }
        }
    }

    /// Takes back what ``counted(_:of:capped:now:)`` recorded: its transaction did not commit.
    func uncounted(_ type: AdEventType, of token: AdToken, capped: Bool, now: Int64) {
        state.withLock { state in
            let day = Self.day(of: now)
            switch type {
            case .impression:
                state.impressions[token.campaignID]?.remove(on: day)
                if capped, let viewer = token.viewerKey, let index = state.views[viewer]?[token.campaignID]?.lastIndex(of: now) {
                    state.views[viewer]?[token.campaignID]?.remove(at: index)
                }
            case .click:
                state.clicks[token.campaignID]?.remove(on: day)
            case .viewable:
                break
            }
        }
    }

    /// Takes in what the store counted: at start, and when the test clock moved to another day.
    func restore(_ deliveries: AdDeliveries, now: Int64) {
        state.withLock { state in
            let day = Self.day(of: now)
            for (campaign, figures) in deliveries.campaigns {
                state.impressions[campaign] = Totals(lifetime: figures.impressions, day: day, today: figures.impressionsToday)
                state.clicks[campaign] = Totals(lifetime: figures.clicks, day: day, today: figures.clicksToday)
            }
            state.views = [:]
            for view in deliveries.views {
                state.views[view.viewer, default: [:]][view.campaign, default: []].append(view.time)
            }
        }
    }

    /// Forgets the served tokens waited for too long, of every campaign.
    func forgetStaleInFlight(now: Int64) {
        state.withLock { state in
            for campaign in Array(state.inFlight.keys) {
                if state.inFlight[campaign]?.count(now: now, lifetime: Self.inFlightMilliseconds) == 0 {
                    state.inFlight[campaign] = nil
                }
            }
        }
    }

    /// Forgets the viewers' impressions older than the longest window a cap may have.
    func forgetViews(before time: Int64) {
        state.withLock { state in
            state.views = state.views.compactMapValues { campaigns in
                let kept = campaigns.compactMapValues { times -> [Int64]? in
                    let recent = times.filter { $0 >= time }
                    return recent.isEmpty ? nil : recent
                }
                return kept.isEmpty ? nil : kept
            }
        }
    }
}

/// The ads served for a campaign whose impression is awaited, with when: counted in constant
/// time on average however many there are, the oldest forgotten first.
struct Reservations: Sendable {
    private var byToken: [String: Int64] = [:]
    /// Every reservation in the order made (the clock only moves forward); those before `head`
    /// are forgotten.
    private var order: [(token: String, at: Int64)] = []
    private var head = 0

    mutating func add(_ token: String, at time: Int64) {
        byToken[token] = time
        order.append((token, time))
    }

    /// The impression of `token` came.
    mutating func remove(_ token: String) {
        byToken[token] = nil
    }

    /// How many were made less than `lifetime` before `now` and are still awaited; the older
    /// are forgotten.
    mutating func count(now: Int64, lifetime: Int64) -> Int {
        while head < order.count, now - order[head].at >= lifetime {
            let (token, time) = order[head]
            if byToken[token] == time { byToken[token] = nil }
            head += 1
        }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        return byToken.count
    }
}
