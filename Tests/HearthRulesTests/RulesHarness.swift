import HearthCore
import HearthRules

/// Runs operations against a rules document and a tree the way the server does, for tests.
struct RulesHarness {
    let rules: RulesDocument
    var tree: Node
    let now: Int64 = 1_700_000_000_000

    init(_ rules: String, data: String = "null") throws {
        self.rules = try RulesDocument(source: rules)
        self.tree = try NodeBuilder(timestamp: now).build(JSONParser.parse(data), at: .root, existing: .null)
    }

    /// The auth variable of a signed-in user with `claims` in their token.
    static func user(_ uid: String, claims: String = "{}") throws -> JSONValue {
        guard case .object(var token) = try JSONParser.parse(claims) else { fatalError("claims must be an object") }
        token.append(JSONMember(key: "sub", value: .string(uid)))
        return .object([
            JSONMember(key: "uid", value: .string(uid)),
            JSONMember(key: "provider", value: .string("custom")),
            JSONMember(key: "token", value: .object(token)),
        ])
    }

    static let anonymous = JSONValue.null

    func canRead(_ path: String, query: QueryParams? = nil, as auth: JSONValue) throws -> Bool {
        rules.checkRead(try DatabasePath(path), query: query, by: RuleRequest(auth: auth, now: now), tree: tree).isAllowed
    }

    /// Checks a set and applies it when allowed, as the engine does.
    mutating func set(_ path: String, _ json: String, as auth: JSONValue) throws -> Bool {
        let location = try DatabasePath(path)
        let node = try NodeBuilder(timestamp: now).build(JSONParser.parse(json), at: location, existing: tree.child(at: location))
        return apply([location], after: tree.updatingChild(at: location, with: node), as: auth)
    }

    /// Checks a multi-path update and applies it when allowed.
    mutating func update(_ path: String, _ entries: [(String, String)], as auth: JSONValue) throws -> Bool {
        let base = try DatabasePath(path)
        var after = tree
        var paths: [DatabasePath] = []
        for (relative, json) in entries {
            let location = base.appending(try DatabasePath(relative))
            let node = try NodeBuilder(timestamp: now).build(JSONParser.parse(json), at: location, existing: tree.child(at: location))
            after = after.updatingChild(at: location, with: node)
            paths.append(location)
        }
        return apply(paths, after: after, as: auth)
    }

    private mutating func apply(_ paths: [DatabasePath], after: Node, as auth: JSONValue) -> Bool {
        let decision = rules.checkWrite(paths, by: RuleRequest(auth: auth, now: now), before: tree, after: after)
        if decision.isAllowed { tree = after }
        return decision.isAllowed
    }

    func value(_ path: String) throws -> String {
        JSONWriter.string(tree.child(at: try DatabasePath(path)))
    }
}
