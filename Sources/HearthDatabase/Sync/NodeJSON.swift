import HearthCore

extension Node {
    /// The node in export format (priorities as `.priority`, prioritised leaves as
    /// `{".value", ".priority"}`): what a put carries on the wire.
    var exportJSON: JSONValue {
        switch self {
        case .null:
            return .null
        case .leaf(let value, let priority):
            guard let priority else { return value.json }
            return .object([JSONMember(key: ".value", value: value.json), JSONMember(key: ".priority", value: priority.leafValue.json)])
        case .object(let children, let priority):
            var members = children.map { JSONMember(key: $0.key.string, value: $0.value.exportJSON) }
            if let priority { members.append(JSONMember(key: ".priority", value: priority.leafValue.json)) }
            return .object(members)
        }
    }

    /// Builds server data (export format, never server values) into a node.
    static func fromServer(_ json: JSONValue) throws(DataError) -> Node {
        try NodeBuilder(timestamp: 0).build(json, atDepth: 0, existing: .null)
    }
}

extension LeafValue {
    var json: JSONValue {
        switch self {
        case .bool(let flag): .bool(flag)
        case .number(let number): .number(number)
        case .string(let string): .string(string)
        }
    }
}

extension JSONValue {
    /// This value with `value` placed at `path` below it (objects created as needed; a leaf on
    /// the way is replaced; `nil` or null removes). Used to edit a remembered onDisconnect value;
    /// `nil` when nothing remains.
    func setting(_ value: JSONValue?, at path: ArraySlice<ChildKey>) -> JSONValue? {
        guard let key = path.first else { return value }
        var members: [JSONMember] = []
        if case .object(let existing) = self { members = existing }
        let current = members.first { $0.key == key.string }?.value ?? .null
        members.removeAll { $0.key == key.string }
        if let child = current.setting(value, at: path.dropFirst()), child != .null {
            members.append(JSONMember(key: key.string, value: child))
        }
        return members.isEmpty ? nil : .object(members)
    }
}
