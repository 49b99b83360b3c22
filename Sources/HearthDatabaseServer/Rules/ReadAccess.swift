import HearthCore
import HearthRules

/// Which of several locations a caller may read, and why not: the console's data view "as a
/// user", which greys out what that user cannot read. Rules are not filters, so each location
/// is judged on its own: a read is granted by any `.read` from the root down to it.
public enum ReadAccess {
    /// The most locations judged at once.
    public static let limit = 500

    /// `{paths: {"/a/b": {allowed, reason?}}}` for `paths` read by `auth` under `rules` over
    /// `tree` at `now` (milliseconds); `reason` names the deepest rule evaluated, or says that
    /// no rule applies.
    public static func judge(_ paths: [String], auth: JSONValue, rules: RulesDocument, tree: Node, now: Int64) throws(RulesSimulation
        .Failure) -> JSONValue
    {
        guard paths.count <= limit else {
            throw RulesSimulation.Failure(input: "paths", problem: "at most \(limit) locations at once")
        }
        let request = RuleRequest(auth: auth, now: now)
        var members: [JSONMember] = []
        for text in paths {
            let path: DatabasePath
            do {
                path = try DatabasePath(writeLocation: text)
            } catch {
                throw RulesSimulation.Failure(input: "paths", problem: "\(text): \(error)")
            }
            let decision = rules.checkRead(path, query: nil, by: request, tree: tree, explain: true)
            var verdict = [JSONMember(key: "allowed", value: .bool(decision.isAllowed))]
            if !decision.isAllowed {
                let reason = decision.evaluations.last.map(\.description) ?? "no .read rule from the root to here"
                verdict.append(JSONMember(key: "reason", value: .string(reason)))
            }
            members.append(JSONMember(key: text, value: .object(verdict)))
        }
        return .object([JSONMember(key: "paths", value: .object(members))])
    }
}
