#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A campaign: which creatives fill which ad units, when, for whom, and how it ranks against
/// other campaigns.
package struct Campaign: Codable, Equatable, Sendable {
    /// Campaigns of a higher priority fill a slot before any of a lower one is considered.
    package enum Priority: String, Codable, Sendable, CaseIterable {
        /// Direct-sold sponsorships: first.
        case sponsorship
        /// Direct-sold campaigns with a contract: next.
        case contract
        /// The project's own promotions: whatever is left.
        case house

        var rank: Int {
            switch self {
            case .sponsorship: 0
            case .contract: 1
            case .house: 2
            }
        }
    }

    package enum Status: String, Codable, Sendable {
        case active, paused
    }

    package var campaignID: String
    package var name: String
    package var status: Status
    package var priority: Priority
    /// Among campaigns of one priority, each fills in proportion to its weight.
    package var weight: Int
    /// When it starts and ends (ISO 8601); open on either side when absent.
    package var start: String?
    package var end: String?
    package var adUnitIDs: [String]
    package var creativeIDs: [String]
    package var targeting: Targeting?
    /// How many impressions or clicks it is to deliver, paced evenly, and never more.
    package var goal: Goal?
    /// How often one viewer may see it.
    package var frequencyCap: FrequencyCap?

    /// The fields a client sends; any other, at any depth, is refused.
    static let shape = FieldShape.object([
        "name": .value, "status": .value, "priority": .value, "weight": .value, "start": .value, "end": .value,
        "adUnitIDs": .value, "creativeIDs": .value,
        "targeting": .object([
            "platforms": .value, "osVersions": .values("min", "max"), "appVersions": .values("min", "max"), "locales": .value,
            "keywords": .value,
        ]),
        "goal": .values("metric", "lifetime", "daily"),
        "frequencyCap": .values("impressions", "windowSeconds", "minimumSecondsApart"),
    ])
    static let weightRange = 1...1_000_000

    /// When it starts and ends, in milliseconds since 1970.
    var window: (start: Int64?, end: Int64?) { (start.flatMap(Self.milliseconds), end.flatMap(Self.milliseconds)) }

    /// Refuses an empty name, a weight out of range, unreadable or contradictory dates, and
    /// targeting that cannot match.
    func validate() throws(AdsError) {
        guard !name.isEmpty, name.utf8.count <= 200 else { throw .invalidField(field: "name", reason: "expected 1 to 200 bytes") }
        guard Self.weightRange.contains(weight) else {
            throw .invalidField(field: "weight", reason: "expected 1 to \(Self.weightRange.upperBound)")
        }
        if let start, Self.milliseconds(start) == nil {
            throw .invalidField(field: "start", reason: "expected an ISO 8601 time such as 2026-12-01T00:00:00Z")
        }
        if let end, Self.milliseconds(end) == nil {
            throw .invalidField(field: "end", reason: "expected an ISO 8601 time such as 2026-12-31T00:00:00Z")
        }
        if let start = window.start, let end = window.end, end <= start {
            throw .invalidField(field: "end", reason: "the campaign ends before it starts")
        }
        guard !adUnitIDs.isEmpty else { throw .invalidField(field: "adUnitIDs", reason: "expected at least one ad unit") }
        guard !creativeIDs.isEmpty else { throw .invalidField(field: "creativeIDs", reason: "expected at least one creative") }
        try targeting?.validate()
        try goal?.validate(window: window)
        try frequencyCap?.validate()
    }

    /// An ISO 8601 time, with or without fractional seconds (as JavaScript's `toISOString()`
    /// writes it), in milliseconds since 1970.
    static func milliseconds(_ text: String) -> Int64? {
        let date =
            (try? Date(text, strategy: .iso8601)) ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        return date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}

/// Who a campaign is shown to. Every rule given must match; a rule absent matches everyone.
package struct Targeting: Codable, Equatable, Sendable {
    /// `ios`, `android`, `macos`, `linux`, …, compared without case.
    package var platforms: [String]?
    package var osVersions: VersionRange?
    package var appVersions: VersionRange?
    /// Languages or locales (`en`, `pt-BR`): `en` matches `en`, `en-US`, `en_GB`.
    package var locales: [String]?
    /// Any one of these among the request's keywords, compared without case.
    package var keywords: [String]?

    func validate() throws(AdsError) {
        for (name, list) in [("platforms", platforms), ("locales", locales), ("keywords", keywords)] {
            guard let list else { continue }
            guard !list.isEmpty else { throw .invalidField(field: "targeting.\(name)", reason: "an empty list matches nobody") }
            if let index = list.firstIndex(where: { $0.isEmpty || $0.utf8.count > 100 }) {
                throw .invalidField(field: "targeting.\(name)[\(index)]", reason: "expected 1 to 100 bytes")
            }
        }
        try osVersions?.validate(field: "targeting.osVersions")
        try appVersions?.validate(field: "targeting.appVersions")
    }
}

/// A range of dotted versions (`14`, `14.2`, `2.10.1`), bounds included; open on a side without one.
package struct VersionRange: Codable, Equatable, Sendable {
    package var min: String?
    package var max: String?

    func validate(field: String) throws(AdsError) {
        if let min, Self.parts(min) == nil { throw .invalidField(field: "\(field).min", reason: "expected a version such as 14.2") }
        if let max, Self.parts(max) == nil { throw .invalidField(field: "\(field).max", reason: "expected a version such as 17") }
        if let low = min.flatMap(Self.parts), let high = max.flatMap(Self.parts), Self.compare(low, high) > 0 {
            throw .invalidField(field: "\(field).max", reason: "the range ends before it begins")
        }
    }

    /// The numbers of a version of up to four parts, each of ASCII digits (no sign).
    static func parts(_ text: String) -> [Int]? {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count <= 4, parts.allSatisfy({ $0.count <= 9 && ASCIIDigits.are($0) }) else { return nil }
        return parts.map { Int(String(decoding: $0, as: UTF8.self)) ?? 0 }
    }

    /// Compares versions part by part, a missing part counting as 0 (`14` = `14.0`).
    static func compare(_ left: [Int], _ right: [Int]) -> Int {
        for index in 0..<Swift.max(left.count, right.count) {
            let (l, r) = (index < left.count ? left[index] : 0, index < right.count ? right[index] : 0)
            if l != r { return l < r ? -1 : 1 }
        }
        return 0
    }
}

/// What a campaign is to deliver: a number of impressions or clicks over its whole window (paced
/// evenly from its start to its end) or each day (UTC, paced evenly over the day), or both. What
/// it delivers never goes past either: an event past a goal is not counted.
package struct Goal: Codable, Equatable, Sendable {
    package enum Metric: String, Codable, Sendable {
        case impressions, clicks
    }

    package var metric: Metric
    package var lifetime: Int?
    package var daily: Int?

    static let range = 1...1_000_000_000

    func validate(window: (start: Int64?, end: Int64?)) throws(AdsError) {
        guard lifetime != nil || daily != nil else {
            throw .invalidField(field: "goal", reason: "give a lifetime or a daily goal, or both")
        }
        if let lifetime {
            guard Self.range.contains(lifetime) else { throw .invalidField(field: "goal.lifetime", reason: "expected at least 1") }
            guard window.start != nil, window.end != nil else {
                throw .invalidField(field: "goal.lifetime", reason: "a lifetime goal is paced from start to end: give both")
            }
        }
        if let daily, !Self.range.contains(daily) {
            throw .invalidField(field: "goal.daily", reason: "expected at least 1")
        }
        if let lifetime, let daily, daily > lifetime {
            throw .invalidField(field: "goal.daily", reason: "the daily goal is larger than the lifetime goal")
        }
    }
}

/// How often one viewer (a request's `viewerKey`) may be shown a campaign: at most `impressions`
/// in any `windowSeconds`, and at least `minimumSecondsApart` between two. A capped campaign
/// is shown only to requests that name their viewer.
package struct FrequencyCap: Codable, Equatable, Sendable {
    package var impressions: Int
    package var windowSeconds: Int
    package var minimumSecondsApart: Int?

    /// The longest window: a viewer's impressions are kept as long as the longest cap looks back.
    static let maximumWindowSeconds = 30 * 24 * 3600

    func validate() throws(AdsError) {
        guard impressions >= 1, impressions <= 10_000 else {
            throw .invalidField(field: "frequencyCap.impressions", reason: "expected 1 to 10000")
        }
        guard (1...Self.maximumWindowSeconds).contains(windowSeconds) else {
            throw .invalidField(field: "frequencyCap.windowSeconds", reason: "expected 1 to \(Self.maximumWindowSeconds) seconds")
        }
        if let minimumSecondsApart, !(0...windowSeconds).contains(minimumSecondsApart) {
            throw .invalidField(field: "frequencyCap.minimumSecondsApart", reason: "expected 0 to windowSeconds")
        }
    }
}
