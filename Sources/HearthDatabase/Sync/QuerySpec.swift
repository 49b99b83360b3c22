import HearthCore

/// A query at a location: what identifies a view and its listen.
struct QuerySpec: Hashable {
    let path: DatabasePath
    let params: QueryParams

    static func all(at path: DatabasePath) -> QuerySpec { QuerySpec(path: path, params: .all) }

    /// Whether the view holds the whole location: such queries share one untagged listen.
    var loadsAllData: Bool { params.loadsAllData }

    /// The view's window of `node`: the whole value for load-all queries, else the selected
    /// children (without the location's own priority, as query results never carry it).
    func window(of node: Node) -> Node {
        guard !params.loadsAllData else { return node }
        return Node.build(children: QueryWindow.select(params, from: node).map { ($0.key, $0.value) })
    }

    /// The `q` object of a listen or get (wire protocol §7.1); `nil` for the default query.
    var wireObject: JSONValue? {
        guard !params.loadsAllData || params.index != .priority else { return nil }
        var members: [JSONMember] = []
        func add(_ key: String, _ value: JSONValue) { members.append(JSONMember(key: key, value: value)) }
        switch params.index {
        case .priority: break
        case .key: add("i", .string(".key"))
        case .value: add("i", .string(".value"))
        case .child(let path): add("i", .string(path.slashless))
        }
        // An exclusive bound without a key (`startAfter(v)`, `endBefore(v)`) names the post past
        // every key with that value, as the JS SDK sends it; the key order has no key part.
        if let start = params.start {
            add("sp", start.value.json)
            let key = start.key ?? (start.inclusive || params.index == .key ? nil : .maximum)
            if let key { add("sn", .string(key.wireString)) }
            if !start.inclusive { add("sin", .bool(false)) }
        }
        if let end = params.end {
            add("ep", end.value.json)
            let key = end.key ?? (end.inclusive || params.index == .key ? nil : .minimum)
            if let key { add("en", .string(key.wireString)) }
            if !end.inclusive { add("ein", .bool(false)) }
        }
        if let limit = params.limit {
            add("l", .number(.int(Int64(limit))))
            add("vf", .string(params.anchor == .first ? "l" : "r"))
        }
        return .object(members)
    }
}

extension IndexValue {
    /// The bound as JSON; objects never bound a query.
    var json: JSONValue {
        switch self {
        case .null, .object: .null
        case .bool(let flag): .bool(flag)
        case .number(let number): .number(number)
        case .string(let string): .string(string)
        }
    }
}

extension BoundKey {
    var wireString: String {
        switch self {
        case .minimum: "[MIN_NAME]"
        case .key(let key): key.string
        case .maximum: "[MAX_NAME]"
        }
    }
}
