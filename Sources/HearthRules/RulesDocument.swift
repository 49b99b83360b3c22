import HearthCore

/// A Realtime Database rules document (`database.rules.json`), parsed as Firebase parses it.
///
/// The source text is kept exactly as sent, comments included, because Firebase returns it that
/// way. This type checks the document's structure and answers `.indexOn`; evaluating `.read`,
/// `.write` and `.validate` builds on the rule tree it holds.
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

    /// Parses and checks `source`.
    public init(source: String) throws(RulesError) {
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
        self.root = try RuleNode(members[0].value, position: members[0].position, wildcardsAbove: [])
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
    /// The raw `.read`, `.write` and `.validate` values (`true`, `false` or an expression string).
    public var read: JSONValue?
    public var write: JSONValue?
    public var validate: JSONValue?
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

    init(_ json: JSONValue, position: SourcePosition, wildcardsAbove: Set<String>) throws(RulesError) {
        guard case .object(let members) = json else {
            throw RulesError(position, "a rule node must be an object")
        }
        for member in members {
            let key = member.key
            switch key {
            case ".read", ".write", ".validate":
                switch member.value {
                case .bool, .string: break
                default: throw RulesError(member.position, "\(key) must be a boolean or a string expression")
                }
                if key == ".read" { read = member.value }
                if key == ".write" { write = member.value }
                if key == ".validate" { validate = member.value }
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
                    guard !wildcardsAbove.contains(key) else {
                        throw RulesError(member.position, "wildcard \"\(key)\" is already used by an enclosing rule")
                    }
                    children[key] = try RuleNode(member.value, position: member.position, wildcardsAbove: wildcardsAbove.union([key]))
                    wildcardName = key
                } else {
                    guard KeyValidation.isValidKey(key) else {
                        throw RulesError(member.position, "invalid key \"\(key)\"")
                    }
                    children[key] = try RuleNode(member.value, position: member.position, wildcardsAbove: wildcardsAbove)
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
