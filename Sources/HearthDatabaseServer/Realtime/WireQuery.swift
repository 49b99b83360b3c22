import HearthCore

/// Reads the query object `q` of listens and gets (protocol §7.1) into ``QueryParams``.
///
/// Both encodings of `startAfter`/`endBefore` arrive here: the JS client's exclusive bounds
/// (`sin`/`ein` false) and the mobile clients' `[MAX_NAME]`/`[MIN_NAME]` key bounds.
enum WireQuery {
    static func parse(_ json: JSONValue) throws(RequestError) -> QueryParams {
        guard case .object(let members) = json else { throw .invalid("query is not an object") }
        var query = QueryParams(index: try index(json["i"]))
        if members.contains(where: { $0.key == "sp" }) {
            query.start = try bound(value: json["sp"]!, key: json["sn"], inclusive: json["sin"])
        }
        if members.contains(where: { $0.key == "ep" }) {
            query.end = try bound(value: json["ep"]!, key: json["en"], inclusive: json["ein"])
        }
        if let limit = json["l"] {
            guard case .number(.int(let count)) = limit, count > 0, count <= Int64(Int32.max) else {
                throw .invalid("query limit must be a positive integer")
            }
            query.limit = Int(count)
            switch json["vf"] {
            case .string("l")?: query.anchor = .first
            case .string("r")?: query.anchor = .last
            case nil: query.anchor = query.start == nil ? .last : .first
            default: throw .invalid("query \"vf\" must be \"l\" or \"r\"")
            }
        }
        return query
    }

    private static func index(_ json: JSONValue?) throws(RequestError) -> QueryIndex {
        switch json {
        case nil, .string(".priority")?: return .priority
        case .string(".key")?: return .key
        case .string(".value")?: return .value
        case .string(let name)?:
            guard let path = try? DatabasePath(name), !path.isRoot else { throw .invalid("invalid query index \"\(name)\"") }
            return .child(path)
        default:
            throw .invalid("query index must be a string")
        }
    }

    private static func bound(
        value json: JSONValue, key: JSONValue?, inclusive: JSONValue?
    ) throws(RequestError) -> QueryParams.Bound {
        guard let value = IndexValue(bound: json) else { throw .invalid("query bounds must be primitives") }
        var boundKey: BoundKey?
        if let key {
            guard case .string(let text) = key, let parsed = BoundKey(parsing: text) else {
                throw .invalid("query bound keys must be valid keys")
            }
            boundKey = parsed
        }
        var isInclusive = true
        if let inclusive {
            guard case .bool(let flag) = inclusive else { throw .invalid("\"sin\" and \"ein\" must be booleans") }
            isInclusive = flag
        }
        return QueryParams.Bound(value: value, key: boundKey, inclusive: isInclusive)
    }
}
