/// Turns JSON written by a client into a ``Node``: validates keys, depth and the `.value`,
/// `.priority` and `.sv` metadata, and resolves server values against the data already stored.
public struct NodeBuilder: Sendable {
    /// The longest string value, in UTF-8 bytes.
    public static let maximumStringBytes = 10 * 1024 * 1024

    /// The server time every `{".sv": "timestamp"}` of one write resolves to, in ms since 1970.
    public var timestamp: Int64

    public init(timestamp: Int64) {
        self.timestamp = timestamp
    }

    /// Builds the node to store at `path`, given the node currently stored there.
    public func build(_ json: JSONValue, at path: DatabasePath, existing: Node) throws(DataError) -> Node {
        try build(json, atDepth: path.count, existing: existing)
    }

    /// Builds the node to store at a location `depth` keys below the root.
    public func build(_ json: JSONValue, atDepth depth: Int, existing: Node) throws(DataError) -> Node {
        guard depth <= KeyValidation.maximumDepth else { throw .tooDeep }
        return try build(json, depth: depth, existing: existing)
    }

    private func build(_ json: JSONValue, depth: Int, existing: Node) throws(DataError) -> Node {
        switch json {
        case .null:
            return .null
        case .bool(let value):
            return .value(.bool(value))
        case .number(let value):
            return .value(.number(value))
        case .string(let value):
            guard value.utf8.count <= Self.maximumStringBytes else { throw .stringTooLong }
            return .value(.string(value))
        case .array(let elements):
            guard depth < KeyValidation.maximumDepth else { throw .tooDeep }
            var children: [(ChildKey, Node)] = []
            for (index, element) in elements.enumerated() {
                let key = ChildKey(String(index))
                children.append((key, try build(element, depth: depth + 1, existing: existing.child(key))))
            }
            return .build(children: children)
        case .object(let members):
            return try buildObject(members, depth: depth, existing: existing)
        }
    }

    private func buildObject(_ members: [JSONMember], depth: Int, existing: Node) throws(DataError) -> Node {
        var priority: Priority?
        var wrappedValue: JSONValue?
        var children: [(ChildKey, Node)] = []
        for member in members {
            switch member.key {
            case ".sv":
                guard members.count == 1 else { throw .invalidServerValue }
                return try resolveServerValue(member.value, existing: existing)
            case ".priority":
                priority = try buildPriority(member.value)
            case ".value":
                wrappedValue = member.value
            default:
                guard KeyValidation.isValidKey(member.key) else {
                    throw .invalidKey(member.key, member.position)
                }
                guard depth < KeyValidation.maximumDepth else { throw .tooDeep }
                let key = ChildKey(member.key)
                children.append((key, try build(member.value, depth: depth + 1, existing: existing.child(key))))
            }
        }
        if let wrappedValue {
            guard children.isEmpty else { throw .invalidValueWrapper }
            let node = try build(wrappedValue, depth: depth, existing: existing)
            return node.withPriority(priority)
        }
        return .build(children: children, priority: priority)
    }

    /// The priority a `.priority` value (or a write to a `.priority` path) sets; `nil` removes it.
    public func buildPriority(_ json: JSONValue) throws(DataError) -> Priority? {
        switch json {
        case .null: return nil
        case .number(let number): return .number(number)
        case .string(let string): return .string(string)
        case .object(let members) where members.count == 1 && members[0].key == ".sv":
            if case .leaf(.number(let number), _) = try resolveServerValue(members[0].value, existing: .null) {
                return .number(number)
            }
            throw .invalidPriority
        default: throw .invalidPriority
        }
    }

    /// `{".sv": "timestamp"}` is the write's timestamp; `{".sv": {"increment": n}}` adds `n` to
    /// the number stored at that exact location, or is `n` when anything else is stored there.
    private func resolveServerValue(_ json: JSONValue, existing: Node) throws(DataError) -> Node {
        switch json {
        case .string("timestamp"):
            return .value(.number(.int(timestamp)))
        case .object(let members) where members.count == 1 && members[0].key == "increment":
            guard case .number(let delta) = members[0].value else { throw .invalidServerValue }
            if case .leaf(.number(let current), _) = existing {
                return .value(.number(current.adding(delta)))
            }
            return .value(.number(delta))
        default:
            throw .invalidServerValue
        }
    }
}
