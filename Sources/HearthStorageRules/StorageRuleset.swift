#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A compiled storage rules file (spec storage-api §10–§15): decides each request by the
/// `allow` statements of the `match` blocks its path matches.
public struct StorageRuleset: Sendable {
    /// 1 or 2, from `rules_version`.
    public let version: Int
    /// Things that load but deserve a look, such as `service cloud.storage`.
    public let warnings: [String]
    /// The rules as written.
    public let source: String
    private let service: MatchBlock

    /// Compiles `source`; throws the first problem, with its line and column.
    public init(source: String) throws(StorageRulesError) {
        self.source = source
        var parser = RulesParser(source: source)
        service = try parser.parseFile()
        version = parser.version
        warnings = parser.warnings
    }

    /// Whether the rules allow `request`, with each `allow` statement considered and its
    /// outcome. The first statement that grants ends the evaluation.
    public func evaluate(_ request: StorageRuleRequest) -> StorageRuleDecision {
        guard version == 2 || request.method != .list else {
            return StorageRuleDecision(isAllowed: false, explanation: ["rules_version '1' allows no list requests"])
        }
        let globals = Self.globals(for: request)
        let budget = RulesBudget()
        var explanation: [String] = []
        var found = false
        var allowed = false
        visit(service, segments: request.pathSegments, from: 0, levels: [], method: request.method, budget: budget) { allow, levels in
            found = true
            let outcome: String
            if let condition = allow.condition {
                let scoped = RulesEvaluator(globals: globals, levels: levels, budget: budget)
                do throws(RulesEvaluationError) {
                    let value = try scoped.evaluate(condition, in: RulesScope(depth: levels.count))
                    allowed = value == .bool(true)
                    outcome = value.isBool ? "\(allowed)" : "\(value.typeName), not a bool: no grant"
                } catch {
                    outcome = "error: \(error.message)"
                }
            } else {
                allowed = true
                outcome = "true"
            }
            explanation.append("\(allow.summary) → \(outcome)")
            return allowed
        }
        if budget.remaining < 0 {
            explanation.append("denied: \(RulesBudget.exhausted.message)")
        } else if !found {
            explanation.append("no allow statement for \(request.method.rawValue) matches /\(request.pathSegments.joined(separator: "/"))")
        }
        return StorageRuleDecision(isAllowed: allowed, explanation: explanation)
    }

    /// Calls `consider` with each `allow` statement for `method` in the blocks matching the
    /// whole path, until it returns true; answers whether it did.
    @discardableResult
    private func visit(
        _ block: MatchBlock, segments: [String], from start: Int, levels: [MatchLevel], method: StorageRuleMethod,
        budget: RulesBudget, consider: (AllowStatement, [MatchLevel]) -> Bool
    ) -> Bool {
        for (end, bindings) in matches(block.path, segments, from: start) {
            guard budget.spend() else { return false }
            let inner = levels + [MatchLevel(functions: block.functions, bindings: bindings)]
            if end == segments.count {
                for allow in block.allows where allow.covers(method) {
                    if consider(allow, inner) { return true }
                }
            }
            for child in block.children {
                if visit(child, segments: segments, from: end, levels: inner, method: method, budget: budget, consider: consider) {
                    return true
                }
            }
        }
        return false
    }

    /// Every way `pattern` can match `segments` from `start`: where it ends and what it binds.
    private func matches(_ pattern: [MatchSegment], _ segments: [String], from start: Int) -> [(Int, [String: StorageRulesValue])] {
        guard let first = pattern.first else { return [(start, [:])] }
        let rest = Array(pattern.dropFirst())
        func continuing(after end: Int, binding: (String, StorageRulesValue)?) -> [(Int, [String: StorageRulesValue])] {
            matches(rest, segments, from: end).map { found in
                var bindings = found.1
                if let binding { bindings[binding.0] = binding.1 }
                return (found.0, bindings)
            }
        }
        switch first {
        case .literal(let literal):
            guard start < segments.count, segments[start] == literal else { return [] }
            return continuing(after: start + 1, binding: nil)
        case .single(let name):
            guard start < segments.count else { return [] }
            return continuing(after: start + 1, binding: (name, .string(segments[start])))
        case .rest(let name):
            let shortest = version == 2 ? 0 : 1
            guard segments.count - start >= shortest else { return [] }
            return (start + shortest...segments.count).flatMap { end in
                continuing(after: end, binding: (name, .path(Array(segments[start..<end]))))
            }
        }
    }

    /// `request` and `resource` for `request` (spec storage-api §14).
    private static func globals(for request: StorageRuleRequest) -> [String: StorageRulesValue] {
        var auth = StorageRulesValue.null
        if let caller = request.auth {
            auth = .map(["uid": caller.uid.map { .string($0) } ?? .null, "token": caller.token])
        }
        let fields: [String: StorageRulesValue] = [
            "auth": auth,
            "path": .path(request.pathSegments),
            "resource": request.requestResource?.rulesValue ?? .null,
            "time": .timestamp(RulesTimestamp(request.time)),
            "params": .map(request.params.mapValues { .string($0) }),
        ]
        return ["request": .map(fields), "resource": request.resource?.rulesValue ?? .null]
    }
}

extension StorageRulesValue {
    var isBool: Bool {
        if case .bool = self { true } else { false }
    }
}
