import HearthCore

/// A value in the storage rules language (spec storage-api §15).
///
/// Equality follows the rules language: an `int` equals a `float` of the same number, sets
/// compare without order, and values of different types are never equal.
public enum StorageRulesValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case list([StorageRulesValue])
    case map([String: StorageRulesValue])
    /// A set: distinct elements in insertion order.
    case set([StorageRulesValue])
    /// A path: its segments, without slashes.
    case path([String])
    case timestamp(RulesTimestamp)
    case duration(RulesDuration)
    /// The result of `map.diff(other)`.
    case mapDiff(RulesMapDiff)

    /// The type's name as `is` tests and error messages spell it.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .bytes: "bytes"
        case .list: "list"
        case .map: "map"
        case .set: "set"
        case .path: "path"
        case .timestamp: "timestamp"
        case .duration: "duration"
        case .mapDiff: "map_diff"
        }
    }

    /// A set of `elements` with duplicates removed.
    static func makeSet(_ elements: [StorageRulesValue]) -> StorageRulesValue {
        var distinct: [StorageRulesValue] = []
        for element in elements where !distinct.contains(element) { distinct.append(element) }
        return .set(distinct)
    }
}

extension StorageRulesValue: Equatable {
    public static func == (lhs: StorageRulesValue, rhs: StorageRulesValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.int(let a), .float(let b)), (.float(let b), .int(let a)): Double(a) == b
        case (.string(let a), .string(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        case (.map(let a), .map(let b)): a == b
        case (.set(let a), .set(let b)): a.count == b.count && a.allSatisfy { b.contains($0) }
        case (.path(let a), .path(let b)): a == b
        case (.timestamp(let a), .timestamp(let b)): a == b
        case (.duration(let a), .duration(let b)): a == b
        case (.mapDiff(let a), .mapDiff(let b)): a == b
        default: false
        }
    }
}

/// An instant: seconds since the Unix epoch and nanoseconds within the second.
public struct RulesTimestamp: Sendable, Hashable, Comparable {
    public var seconds: Int64
    /// 0 ..< 1_000_000_000.
    public var nanos: Int64

    public init(seconds: Int64, nanos: Int64 = 0) {
        self.seconds = seconds + nanos.floorDivided(by: 1_000_000_000)
        self.nanos = nanos.floorModulo(1_000_000_000)
    }

    /// The instant `milliseconds` after the epoch.
    public init(milliseconds: Int64) {
        self.init(seconds: milliseconds.floorDivided(by: 1000), nanos: milliseconds.floorModulo(1000) * 1_000_000)
    }

    public static func < (lhs: RulesTimestamp, rhs: RulesTimestamp) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}

/// A length of time, in nanoseconds (about ±292 years).
public struct RulesDuration: Sendable, Hashable, Comparable {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public static func < (lhs: RulesDuration, rhs: RulesDuration) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }
}

/// The keys two maps share and do not share (`map.diff`).
public struct RulesMapDiff: Sendable, Equatable {
    var left: [String: StorageRulesValue]
    var right: [String: StorageRulesValue]

    var added: [String] { right.keys.filter { left[$0] == nil }.sorted() }
    var removed: [String] { left.keys.filter { right[$0] == nil }.sorted() }
    var changed: [String] { left.keys.filter { key in right[key].map { $0 != left[key]! } ?? false }.sorted() }
    var unchanged: [String] { left.keys.filter { key in right[key].map { $0 == left[key]! } ?? false }.sorted() }
    var affected: [String] { (added + removed + changed).sorted() }
}

extension RulesTimestamp {
    /// Seconds of 0001-01-01T00:00:00Z and of 9999-12-31T23:59:59Z: the range of timestamps.
    static let representable: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// The timestamp, if it lies in the representable range; an evaluation error otherwise.
    func checked() throws(RulesEvaluationError) -> RulesTimestamp {
        guard Self.representable.contains(seconds) else { throw RulesEvaluationError("timestamp out of range") }
        return self
    }

    /// The instant `nanoseconds` later (earlier when negative).
    func adding(_ nanoseconds: Int64) throws(RulesEvaluationError) -> RulesTimestamp {
        let whole = nanoseconds.floorDivided(by: 1_000_000_000)
        guard Self.representable.contains(seconds), Swift.abs(whole) <= 1 << 40 else {
            throw RulesEvaluationError("timestamp out of range")
        }
        return try RulesTimestamp(seconds: seconds + whole, nanos: nanos + nanoseconds.floorModulo(1_000_000_000)).checked()
    }

    /// The time from `earlier` to this instant.
    func duration(since earlier: RulesTimestamp) throws(RulesEvaluationError) -> RulesDuration {
        let (seconds, overflow) = self.seconds.subtractingReportingOverflow(earlier.seconds)
        let (scaled, scaleOverflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, sumOverflow) = scaled.addingReportingOverflow(nanos - earlier.nanos)
        guard !overflow, !scaleOverflow, !sumOverflow else { throw RulesEvaluationError("duration out of range") }
        return RulesDuration(nanoseconds: total)
    }
}
