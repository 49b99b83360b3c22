import HearthCore

/// Reads Firebase's REST query parameters (`orderBy`, `startAt`, `limitToFirst`, …) into
/// ``QueryParams``, refusing what Firebase refuses with its error texts (protocol §11.4).
struct RESTQueryParser {
    /// The parameters that filter or order; `shallow` may not be mixed with them.
    static let rangeNames = ["startAt", "startAfter", "endAt", "endBefore", "equalTo"]
    static let limitNames = ["limitToFirst", "limitToLast"]

    /// The query the parameters describe, or `nil` when they describe none.
    ///
    /// `shallow=true&limitToFirst=N` without `orderBy` is accepted and ordered by key, as the
    /// Firebase CLI relies on.
    static func parse(_ parameters: [String: String], shallow: Bool) throws(RESTError) -> QueryParams? {
        let orderByText = parameters["orderBy"]
        let hasRange = rangeNames.contains { parameters[$0] != nil }
        let hasLimit = limitNames.contains { parameters[$0] != nil }
        guard orderByText != nil || hasRange || hasLimit else { return nil }

        if shallow {
            let shallowListing = orderByText == nil && !hasRange && parameters["limitToLast"] == nil
            guard shallowListing else {
                throw .badRequest("Mixing 'shallow' and querying parameters is not supported")
            }
        }
        guard let orderByText else {
            guard shallow else { throw .badRequest("orderBy must be defined when other query parameters are defined") }
            var query = QueryParams(index: .key)
            query.limit = try parseLimit(parameters["limitToFirst"]!, name: "limitToFirst")
            return query
        }
        var query = QueryParams(index: try parseIndex(orderByText))
        try parseRange(parameters, into: &query)
        try parseLimits(parameters, into: &query)
        return query
    }

    private static func parseIndex(_ text: String) throws(RESTError) -> QueryIndex {
        guard case .string(let name)? = try? JSONParser.parse(text) else {
            throw .badRequest("orderBy must be a valid JSON encoded path")
        }
        switch name {
        case "$key": return .key
        case "$value": return .value
        case "$priority": return .priority
        default:
            guard let path = try? DatabasePath(name), !path.isRoot else {
                throw .badRequest("orderBy must be a valid JSON encoded path")
            }
            return .child(path)
        }
    }

    private static func parseRange(_ parameters: [String: String], into query: inout QueryParams) throws(RESTError) {
        let startNames = ["startAt", "startAfter", "equalTo"].filter { parameters[$0] != nil }
        let endNames = ["endAt", "endBefore", "equalTo"].filter { parameters[$0] != nil }
        guard startNames.count <= 1, endNames.count <= 1 else {
            throw .badRequest("Only one of startAt, startAfter and equalTo, and one of endAt, endBefore and equalTo, may be given")
        }
        if let name = startNames.first {
            let exclusive = name == "startAfter"
            query.start = try parseBound(parameters[name]!, index: query.index, exclusive: exclusive, isStart: true)
        }
        if let name = endNames.first {
            let exclusive = name == "endBefore"
            query.end = try parseBound(parameters[name]!, index: query.index, exclusive: exclusive, isStart: false)
        }
    }

    /// A bound is a JSON primitive, optionally followed by `,` and a JSON string key.
    private static func parseBound(
        _ text: String, index: QueryIndex, exclusive: Bool, isStart: Bool
    ) throws(RESTError) -> QueryParams.Bound {
        let (valueJSON, keyJSON) = try splitBound(text)
        guard let value = IndexValue(bound: valueJSON) else {
            throw .badRequest("Constraint index field must be a JSON primitive")
        }
        if index == .key {
            guard case .string(let key) = value else {
                throw .badRequest("Provided key index type is invalid, must be string")
            }
            guard keyJSON == nil, KeyValidation.isValidKey(key) else {
                throw .badRequest("Constraint key field must be a valid key name")
            }
            return QueryParams.Bound(value: value, inclusive: !exclusive)
        }
        var key: BoundKey?
        if let keyJSON {
            guard case .string(let keyText) = keyJSON, let parsed = BoundKey(parsing: keyText) else {
                throw .badRequest("Constraint key field must be a valid key name")
            }
            key = parsed
        }
        return QueryParams.Bound(value: value, key: key, inclusive: !exclusive)
    }

    private static func splitBound(_ text: String) throws(RESTError) -> (JSONValue, JSONValue?) {
        if let whole = try? JSONParser.parse(text) { return (whole, nil) }
        var searchStart = text.startIndex
        while let comma = text[searchStart...].firstIndex(of: ",") {
            if let value = try? JSONParser.parse(String(text[..<comma])), value.isPrimitive {
                guard let key = try? JSONParser.parse(String(text[text.index(after: comma)...])) else {
                    throw .badRequest("Constraint key field must be a valid key name")
                }
                return (value, key)
            }
            searchStart = text.index(after: comma)
        }
        throw .badRequest("Constraint index field must be a JSON primitive")
    }

    private static func parseLimits(_ parameters: [String: String], into query: inout QueryParams) throws(RESTError) {
        if parameters["limitToFirst"] != nil, parameters["limitToLast"] != nil {
            throw .badRequest("Only one of limitToFirst and limitToLast may be given")
        }
        if let text = parameters["limitToFirst"] {
            query.limit = try parseLimit(text, name: "limitToFirst")
            query.anchor = .first
        }
        if let text = parameters["limitToLast"] {
            query.limit = try parseLimit(text, name: "limitToLast")
            query.anchor = .last
        }
    }

    private static func parseLimit(_ text: String, name: String) throws(RESTError) -> Int {
        guard let limit = Int(text), limit > 0 else {
            throw .badRequest("\(name) must be a positive integer")
        }
        return limit
    }
}
