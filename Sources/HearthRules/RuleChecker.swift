import HearthCore

/// The outcome of checking one operation against the rules, and, when asked for, every rule
/// evaluated on the way, to explain a denial.
public struct RuleDecision: Sendable {
    public var isAllowed: Bool
    /// The evaluations made, in order; empty unless the check was asked to explain.
    public var evaluations: [RuleEvaluation]
}

/// One rule evaluated for an operation: where, which rule, what it saw and how it came out.
public struct RuleEvaluation: Sendable, CustomStringConvertible {
    public var path: DatabasePath
    public var condition: RuleCondition
    public var outcome: RuleOutcome
    /// `data` and, for write rules, `newData` at the rule's location, abbreviated.
    public var data: String
    public var newData: String?
    /// The `$` variables at the rule's location and their values, outermost first.
    public var variables: [(name: String, value: String)]

    public var description: String {
        var text =
            "\(condition.kind.rawValue) at \(path) (line \(condition.position.line)) \"\(condition.source)\" → \(outcome); data = \(data)"
        if let newData { text += ", newData = \(newData)" }
        return text
    }
}

/// The caller of an operation as rules see it: `auth` (JSON null when signed out) and `now`, one
/// clock reading for the whole operation.
public struct RuleRequest: Sendable {
    public var auth: JSONValue
    public var now: Int64

    public init(auth: JSONValue, now: Int64) {
        self.auth = auth
        self.now = now
    }
}

extension RulesDocument {
    /// Whether a read or listen of `path` (with `query`, `nil` for a plain read) is granted: some
    /// `.read` from the root down to `path` must evaluate to true. Rules below `path` are never
    /// consulted; rules are not filters.
    public func checkRead(
        _ path: DatabasePath, query: QueryParams?, by request: RuleRequest, tree: Node, explain: Bool = false
    ) -> RuleDecision {
        var walk = RuleWalk(request, before: tree, after: tree, query: QueryVariables(query), explain: explain)
        let allowed = walk.grants(\.read, along: path, from: root)
        return RuleDecision(isAllowed: allowed, evaluations: walk.evaluations)
    }

    /// Whether a write that turns `before` into `after` by replacing the nodes at `paths` (one for
    /// a set, one per entry of a multi-path update) is allowed: each path needs a `.write` grant
    /// from the root down to it, and every `.validate` on those paths and in the new data below
    /// them must hold wherever the new data exists.
    public func checkWrite(
        _ paths: [DatabasePath], by request: RuleRequest, before: Node, after: Node, explain: Bool = false
    ) -> RuleDecision {
        var walk = RuleWalk(request, before: before, after: after, query: .plainRead, explain: explain)
        let allowed =
            paths.allSatisfy { walk.grants(\.write, along: $0, from: root) }
            && paths.allSatisfy { walk.validates(along: $0, from: root) }
        return RuleDecision(isAllowed: allowed, evaluations: walk.evaluations)
    }
}

/// One operation's walk over the rule tree and the data, old and new, in step.
private struct RuleWalk {
    let environment: RuleEnvironment
    let before: Node
    let after: Node
    var evaluations: [RuleEvaluation]
    let explain: Bool
    /// Locations whose `.validate` already ran (several update entries share ancestors).
    var validatedLocations: Set<DatabasePath> = []

    init(_ request: RuleRequest, before: Node, after: Node, query: QueryVariables, explain: Bool) {
        environment = RuleEnvironment(auth: request.auth, now: request.now, before: before, after: after, query: query)
        self.before = before
        self.after = after
        self.explain = explain
        self.evaluations = []
    }

    /// Walks from the root to `path`; true as soon as one rule picked by `rule` grants.
    mutating func grants(_ rule: KeyPath<RuleNode, RuleCondition?>, along path: DatabasePath, from root: RuleNode) -> Bool {
        var found = false
        walk(along: path, from: root) { walk, node, location in
            guard let condition = node[keyPath: rule] else { return true }
            found = walk.evaluate(condition)
            return !found
        }
        return found
    }

    /// Every `.validate` from the root to `path` where the new data exists, then every one in the
    /// new data below `path`.
    mutating func validates(along path: DatabasePath, from root: RuleNode) -> Bool {
        var valid = true
        var deepest: RuleNode?
        walk(along: path, from: root) { walk, node, location in
            guard !walk.environment.newData.node.isNull else { return false }
            if location == path { deepest = node }
            guard let condition = node.validate, walk.validatedLocations.insert(location).inserted else { return true }
            valid = walk.evaluate(condition)
            return valid
        }
        guard valid, let deepest else { return valid }
        return validatesBelow(deepest)
    }

    /// Calls `visit` with the rule node of each location from the root to `path`, with `data`,
    /// `newData` and the captures set for it, until there is no rule node or `visit` returns false.
    private mutating func walk(
        along path: DatabasePath, from root: RuleNode, _ visit: (inout RuleWalk, RuleNode, DatabasePath) -> Bool
    ) {
        environment.captures = []
        var node = root
        var data = RuleSnapshot(root: before)
        var newData = RuleSnapshot(root: after)
        for depth in 0...path.count {
            environment.data = data
            environment.newData = newData
            guard visit(&self, node, data.path), depth < path.count else { return }
            let key = path.keys[depth]
            if node.isWildcardMatch(key.string) { environment.captures.append(key.string) }
            guard let child = node.child(for: key.string) else { return }
            node = child
            data = data.child(key)
            newData = newData.child(key)
        }
    }

    /// The `.validate` rules of the new data below the current location (whose `data` and
    /// `newData` the environment holds), depth first.
    private mutating func validatesBelow(_ node: RuleNode) -> Bool {
        guard !node.children.isEmpty, case .object(let children, _) = environment.newData.node else { return true }
        let data = environment.data
        let newData = environment.newData
        let keys: [ChildKey] =
            node.wildcardName == nil ? node.children.keys.map(ChildKey.init) : children.map(\.key)
        for key in keys {
            guard let child = node.child(for: key.string) else { continue }
            let captured = node.isWildcardMatch(key.string)
            if captured { environment.captures.append(key.string) }
            defer { if captured { environment.captures.removeLast() } }
            environment.data = data.child(key)
            environment.newData = newData.child(key)
            guard !environment.newData.node.isNull else { continue }
            if let condition = child.validate, !evaluate(condition) { return false }
            guard validatesBelow(child) else { return false }
        }
        return true
    }

    /// Evaluates `condition` at the location the environment holds, recording it when explaining.
    private mutating func evaluate(_ condition: RuleCondition) -> Bool {
        let outcome = condition.outcome(in: environment)
        if explain {
            evaluations.append(
                RuleEvaluation(
                    path: environment.data.path, condition: condition, outcome: outcome,
                    data: Self.abbreviated(environment.data.node),
                    newData: condition.kind == .read ? nil : Self.abbreviated(environment.newData.node),
                    variables: Array(zip(condition.variableNames, environment.captures)).map { (name: $0, value: $1) }))
        }
        return outcome == .granted
    }

    /// At most 200 bytes of `node`, rendered in time bounded by that length: any client can
    /// provoke denials, so explaining one must not cost the size of the data.
    private static func abbreviated(_ node: Node) -> String {
        JSONWriter.abbreviation(of: node, maximumBytes: RuleValue.summaryBytes)
    }
}
