import HearthCore

/// A Realtime Database rules document (`database.rules.json`), parsed as Firebase parses it.
///
/// The source text is kept exactly as sent, comments included, because Firebase returns it that
/// way. Every expression is parsed, type-checked and compiled when the document is read, so a
/// document Firebase would refuse to deploy is refused here, with the line and column of the
/// rule, and checking a request only evaluates.
public struct RulesDocument: Sendable {
    /// The text as it was written, comments and formatting included.
    public let source: String
    /// The document as JSON, comments removed.
    public let json: JSONValue
    /// The rule node for the database root.
    public let root: RuleNode

    /// The rules of a namespace nobody configured: everything may be read and written, as the
    /// Firebase emulator does.
    public static let open: RulesDocument = {
        let source = "{\n  \"rules\": {\n    \".read\": true,\n    \".write\": true\n  }\n}\n"
        return try! RulesDocument(source: source)
    }()

    /// The rules `firebase init` writes and production mode starts with: only signed-in users
    /// may read and write.
    public static let signedInOnly: RulesDocument = {
        let source = "{\n  \"rules\": {\n    \".read\": \"auth != null\",\n    \".write\": \"auth != null\"\n  }\n}\n"
        return try! RulesDocument(source: source)
    }()

    /// Rules that grant nothing: every client's read and write is refused.
    public static let closed: RulesDocument = {
        try! RulesDocument(source: "{\n  \"rules\": {}\n}\n")
    }()

    /// The largest rules document accepted.
    public static let maximumSourceBytes = 256 * 1024

    /// Parses and checks `source`.
    public init(source: String) throws(RulesError) {
        guard source.utf8.count <= Self.maximumSourceBytes else {
            throw RulesError(line: 1, column: 1, problem: "the rules are larger than 256 KiB")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(source, syntax: .rules)
        } catch {
            throw RulesError(line: error.position.line, column: error.position.column, problem: error.reasonText)
        }
        guard case .object(let members) = json, members.count == 1, members[0].key == "rules" else {
            throw RulesError(line: 1, column: 1, problem: "the document must be an object with exactly one key, \"rules\"")
        }
        self.source = source
        self.json = json
        self.root = try RuleNode(members[0].value, position: members[0].position, captures: [])
    }

    /// The document as strict JSON, comments removed (`?format=strict`).
    public var strictJSON: String {
        JSONWriter.string(json, pretty: true)
    }

    /// The `.indexOn` entries that apply to the location `path`, following `$` wildcards where no
    /// literal key matches.
    public func indexedChildren(at path: DatabasePath) -> Set<String> {
        var node: RuleNode? = root
        for key in path.keys {
            node = node?.child(for: key.string)
        }
        return Set(node?.indexOn ?? [])
    }

    /// Whether a query ordered by `index` at `path` has the index it needs.
    public func isIndexed(_ index: QueryIndex, at path: DatabasePath) -> Bool {
        guard let name = index.indexOnName else { return true }
        return indexedChildren(at: path).contains(name)
    }
}

/// One node of the rule tree: the rules at one location and the nodes below it.
public struct RuleNode: Sendable {
    /// The `.read`, `.write` and `.validate` conditions, compiled.
    public var read: RuleCondition?
    public var write: RuleCondition?
    public var validate: RuleCondition?
    /// Child paths (or `.value`) to index for queries here.
    public var indexOn: [String] = []
    /// Rule nodes of child keys: literal keys, and the wildcard under its `$name`.
    public var children: [String: RuleNode] = [:]
    /// The name of the `$` wildcard (with its `$`), whose node applies to every other child key.
    public var wildcardName: String?

    /// The rule node for the child `key`: its literal node, else the wildcard's.
    public func child(for key: String) -> RuleNode? {
        children[key] ?? wildcardName.flatMap { children[$0] }
    }

    /// Whether `key` is handled by the wildcard (and so is captured as its `$` variable).
    func isWildcardMatch(_ key: String) -> Bool {
        children[key] == nil && wildcardName != nil
    }

    /// Reads one rule node; `captures` are the `$` wildcards of its ancestors, outermost first.
    init(_ json: JSONValue, position: SourcePosition, captures: [String]) throws(RulesError) {
        guard case .object(let members) = json else {
            throw RulesError(position, "a rule node must be an object")
        }
        for member in members {
            let key = member.key
            switch key {
            case ".read", ".write", ".validate":
                let kind = RuleKind(rawValue: key)!
                let condition = try RuleCondition(member, kind: kind, captures: captures)
                switch kind {
                case .read: read = condition
                case .write: write = condition
                case .validate: validate = condition
                }
            case ".indexOn":
                indexOn = try Self.parseIndexOn(member)
            default:
                if key.hasPrefix(".") {
                    throw RulesError(member.position, "invalid rule type \"\(key)\"")
                }
                if key.hasPrefix("$") {
                    if let wildcardName {
                        throw RulesError(
                            member.position, "a node may hold only one $ wildcard; found \"\(key)\" beside \"\(wildcardName)\"")
                    }
                    guard !captures.contains(key) else {
                        throw RulesError(member.position, "wildcard \"\(key)\" is already used by an enclosing rule")
                    }
                    guard KeyValidation.isValidKey(String(key.dropFirst())) else {
                        throw RulesError(member.position, "invalid wildcard \"\(key)\"")
                    }
                    children[key] = try RuleNode(member.value, position: member.position, captures: captures + [key])
                    wildcardName = key
                } else {
                    guard KeyValidation.isValidKey(key) else {
                        throw RulesError(member.position, "invalid key \"\(key)\"")
                    }
                    children[key] = try RuleNode(member.value, position: member.position, captures: captures)
                }
            }
        }
    }

    private static func parseIndexOn(_ member: JSONMember) throws(RulesError) -> [String] {
        switch member.value {
        case .string(let name):
            return [name]
        case .array(let elements):
            var names: [String] = []
            for element in elements {
                guard case .string(let name) = element else {
                    throw RulesError(member.position, ".indexOn must be a string or an array of strings")
                }
                names.append(name)
            }
            return names
        default:
            throw RulesError(member.position, ".indexOn must be a string or an array of strings")
        }
    }
}

/// Why a rules document was refused, with where in the source.
public struct RulesError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var problem: String

    public init(line: Int, column: Int, problem: String) {
        self.line = line
        self.column = column
        self.problem = problem
    }

    init(_ position: SourcePosition, _ problem: String) {
        self.init(line: position.line, column: position.column, problem: problem)
    }

    /// `Line 3 (column 7): <problem>`, the form the error body carries.
    public var description: String {
        "Line \(line) (column \(column)): \(problem)"
    }
}
