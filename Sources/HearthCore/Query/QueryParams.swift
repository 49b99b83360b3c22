/// A query's order, range and limit: what `orderBy…`, `startAt`/`startAfter`, `endAt`/`endBefore`,
/// `equalTo` and `limitToFirst`/`limitToLast` describe.
public struct QueryParams: Sendable, Hashable {
    /// One end of a range: an index value and an optional key that breaks ties.
    public struct Bound: Sendable, Hashable {
        public var value: IndexValue
        public var key: BoundKey?
        public var inclusive: Bool

        public init(value: IndexValue, key: BoundKey? = nil, inclusive: Bool = true) {
            self.value = value
            self.key = key
            self.inclusive = inclusive
        }
    }

    /// Which end of the range a limit keeps.
    public enum LimitAnchor: Sendable, Hashable {
        /// `limitToFirst`
        case first
        /// `limitToLast`
        case last
    }

    public var index: QueryIndex
    public var start: Bound?
    public var end: Bound?
    public var limit: Int?
    public var anchor: LimitAnchor

    public init(
        index: QueryIndex = .priority, start: Bound? = nil, end: Bound? = nil, limit: Int? = nil,
        anchor: LimitAnchor = .first
    ) {
        self.index = index
        self.start = start
        self.end = end
        self.limit = limit
        self.anchor = anchor
    }

    /// The query that returns the whole location.
    public static let all = QueryParams()

    /// Whether the query filters nothing (it may still order).
    public var loadsAllData: Bool { start == nil && end == nil && limit == nil }
}

/// The key part of a range bound, with the two markers Firebase clients send.
public enum BoundKey: Sendable, Hashable, Comparable {
    /// `[MIN_NAME]`: before every key.
    case minimum
    case key(ChildKey)
    /// `[MAX_NAME]`: after every key.
    case maximum

    /// Parses a key or one of the markers `[MIN_NAME]` and `[MAX_NAME]`.
    public init?(parsing text: String) {
        switch text {
        case "[MIN_NAME]": self = .minimum
        case "[MAX_NAME]": self = .maximum
        default:
            guard KeyValidation.isValidKey(text) else { return nil }
            self = .key(ChildKey(text))
        }
    }
}
