import HearthCore

/// The listeners of one location and query, as the console's traffic view lists them.
public struct ListenerSummary: Sendable {
    struct Key: Hashable {
        let location: DatabasePath
        let query: QueryParams
        let isUnindexed: Bool
    }

    let key: Key
    /// How many listen.
    public let listeners: Int

    /// `{path, query, unindexed, listeners}`, `query` as the REST parameters that ask for it
    /// (empty for a whole location), `unindexed` true for a query that needs an `.indexOn`.
    public var json: JSONValue {
        .object([
            JSONMember(key: "path", value: .string(key.location.description)),
            JSONMember(key: "query", value: .string(Self.describe(key.query))),
            JSONMember(key: "unindexed", value: .bool(key.isUnindexed)),
            JSONMember(key: "listeners", value: .number(.int(Int64(listeners)))),
        ])
    }

    /// `orderBy="…"&startAt=…&limitToFirst=…`, as a REST query names the same window.
    static func describe(_ query: QueryParams) -> String {
        guard !query.loadsAllData || query.index != .priority else { return "" }
        var parameters = ["orderBy=\(JSONWriter.string(.string(query.index.description)))"]
        if let start = query.start {
            parameters.append("\(start.inclusive ? "startAt" : "startAfter")=\(describe(start.value))")
        }
        if let end = query.end {
            parameters.append("\(end.inclusive ? "endAt" : "endBefore")=\(describe(end.value))")
        }
        if let limit = query.limit {
            parameters.append("\(query.anchor == .first ? "limitToFirst" : "limitToLast")=\(limit)")
        }
        return parameters.joined(separator: "&")
    }

    private static func describe(_ value: IndexValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let bool): String(bool)
        case .number(let number): JSONWriter.string(.number(number))
        case .string(let string): JSONWriter.string(.string(string))
        case .object: "{}"
        }
    }
}
