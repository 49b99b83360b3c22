import HearthCore
import HearthRules

extension RuleDecision {
    /// `{allowed, evaluations: [{path, kind, line, source, outcome, data, newData?, variables}]}`,
    /// as the console's playground and requests feed show a decision.
    public var json: JSONValue {
        .object([
            JSONMember(key: "allowed", value: .bool(isAllowed)),
            JSONMember(key: "evaluations", value: .array(evaluations.map(\.json))),
        ])
    }
}

extension RuleEvaluation {
    var json: JSONValue {
        var members = [
            JSONMember(key: "path", value: .string(path.description)),
            JSONMember(key: "kind", value: .string(condition.kind.rawValue)),
            JSONMember(key: "line", value: .number(.int(Int64(condition.position.line)))),
            JSONMember(key: "source", value: .string(condition.source)),
            JSONMember(key: "outcome", value: .string(outcome.description)),
            JSONMember(key: "data", value: .string(data)),
        ]
        if let newData { members.append(JSONMember(key: "newData", value: .string(newData))) }
        members.append(
            JSONMember(
                key: "variables",
                value: .object(variables.map { JSONMember(key: $0.name, value: .string($0.value)) })))
        return .object(members)
    }
}
