import HearthCore

/// The variables one rule sees: shared ones (`auth`, `now`, `root`, `query`) and those of the
/// rule's location (`data`, `newData`, the `$` captures).
///
/// A class so that compiled expressions share one instance per operation instead of copying it
/// at every step; it never leaves the evaluation that made it.
final class RuleEnvironment {
    let auth: RuleValue
    let now: RuleValue
    let root: RuleSnapshot
    let query: QueryVariables
    var data: RuleSnapshot
    var newData: RuleSnapshot
    /// The keys matched by the `$` wildcards from the root to the rule's node, outermost first.
    var captures: [String] = []

    init(auth: JSONValue, now: Int64, before: Node, after: Node, query: QueryVariables) {
        self.auth = RuleValue(auth)
        self.now = .number(Double(now))
        self.root = RuleSnapshot(root: before)
        self.query = query
        self.data = root
        self.newData = RuleSnapshot(root: after)
    }
}

/// The `query` variable of read rules: the parameters of the query being authorized.
public struct QueryVariables: Sendable {
    var orderByKey = true
    var orderByValue = false
    var orderByPriority = false
    var orderByChild: RuleValue = .null
    var startAt: RuleValue = .null
    var endAt: RuleValue = .null
    var equalTo: RuleValue = .null
    var limitToFirst: RuleValue = .null
    var limitToLast: RuleValue = .null

    /// What a plain read sees: ordered by key, no bounds, no limit.
    public static let plainRead = QueryVariables()

    /// The variables of `query`. A query that neither orders explicitly nor filters is a plain
    /// read (`orderByKey`), as Firebase reports it.
    public init(_ query: QueryParams?) {
        guard let query, query != .all else { return }
        orderByKey = query.index == .key
        orderByValue = query.index == .value
        orderByPriority = query.index == .priority
        if case .child(let path) = query.index { orderByChild = .string(path.slashless) }
        if let start = query.start, let end = query.end, start == end, start.inclusive {
            equalTo = Self.value(of: start.value)
        } else {
            startAt = query.start.map { Self.value(of: $0.value) } ?? .null
            endAt = query.end.map { Self.value(of: $0.value) } ?? .null
        }
        if let limit = query.limit {
            if query.anchor == .first { limitToFirst = .number(Double(limit)) } else { limitToLast = .number(Double(limit)) }
        }
    }

    private init() {}

    private static func value(of bound: IndexValue) -> RuleValue {
        switch bound {
        case .null, .object: .null
        case .bool(let value): .bool(value)
        case .number(let number): .number(number.doubleValue)
        case .string(let string): .string(string)
        }
    }

    /// The member named `name`, or `nil` when `query` has no such member.
    static func member(_ name: String) -> (@Sendable (QueryVariables) -> RuleValue)? {
        switch name {
        case "orderByKey": { .bool($0.orderByKey) }
        case "orderByValue": { .bool($0.orderByValue) }
        case "orderByPriority": { .bool($0.orderByPriority) }
        case "orderByChild": { $0.orderByChild }
        case "startAt": { $0.startAt }
        case "endAt": { $0.endAt }
        case "equalTo": { $0.equalTo }
        case "limitToFirst": { $0.limitToFirst }
        case "limitToLast": { $0.limitToLast }
        default: nil
        }
    }
}
