import HearthCore
import Synchronization

/// The kinds of event a shown ad reports.
package enum AdEventType: String, Codable, Sendable, CaseIterable {
    /// The ad was rendered on screen.
    case impression
    /// At least half of its pixels were on screen for one continuous second.
    case viewable
    case click
}

/// Requests, fills and invalid events counted in memory and added to the store's counts about
/// once a second (``AdsService``): a decision is not worth a disk write of its own. A crash loses
/// at most the last second of these; impressions, viewable impressions and clicks are counted
/// durably, one by one (``AdsStore/record(_:of:campaign:ledger:)``).
struct AdTally: Sendable {
    struct Key: Hashable, Sendable {
        var hour: Int64
        var campaignID: String
        var creativeID: String
        var adUnitID: String
    }

    struct Figures: Sendable {
        var requests = 0
        var fills = 0
        var invalid = 0
    }

    var figures: [Key: Figures] = [:]

    var isEmpty: Bool { figures.isEmpty }

    /// The figures as the stores add them: a JSON array of `[hour, campaign, creative, unit,
    /// requests, fills, invalid]`.
    var rows: JSONValue {
        .array(
            figures.map { key, figures in
                .array([
                    .number(.int(key.hour)), .string(key.campaignID), .string(key.creativeID), .string(key.adUnitID),
                    .number(.int(Int64(figures.requests))), .number(.int(Int64(figures.fills))),
                    .number(.int(Int64(figures.invalid))),
                ])
            })
    }
}

/// An ``AdTally`` shared by every request, taken whole by each flush.
final class SharedTally: Sendable {
    private let tally = Mutex(AdTally())

    func count(_ key: AdTally.Key, _ change: (inout AdTally.Figures) -> Void) {
        tally.withLock { change(&$0.figures[key, default: .init()]) }
    }

    /// What was counted since the last take.
    func take() -> AdTally {
        tally.withLock { tally in
            defer { tally = AdTally() }
            return tally
        }
    }

    /// Puts back what a failed flush took, so that it is added by the next.
    func restore(_ taken: AdTally) {
        tally.withLock { tally in
            for (key, figures) in taken.figures {
                tally.figures[key, default: .init()].requests += figures.requests
                tally.figures[key, default: .init()].fills += figures.fills
                tally.figures[key, default: .init()].invalid += figures.invalid
            }
        }
    }
}

/// A report: counts summed by hour or day, per campaign, creative or unit.
package enum AdReport {
    /// The hour (since 1970) of `milliseconds`.
    static func hour(of milliseconds: Int64) -> Int64 { milliseconds / 3_600_000 }

    package enum Period: String, Sendable {
        case hour, day

        /// The SQL that gives the first hour of a count's period.
        var bucket: String { self == .day ? "hour / 24 * 24" : "hour" }
    }

    /// The column a report sums by: the raw value names it.
    package enum Group: String, Sendable {
        case campaign, creative, unit
    }

    package struct Row: Codable, Equatable, Sendable {
        /// The first hour (since 1970) of the row's period.
        var hour: Int64
        /// The campaign, creative or unit id; empty for requests nothing filled.
        var key: String
        var requests: Int
        var fills: Int
        var impressions: Int
        var viewable: Int
        var clicks: Int
        var invalid: Int
    }
}
