import HearthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fields a JSON object may have: each a value, or an object with fields of its own. Any
/// other field, at any depth, is refused rather than ignored (a misspelt targeting rule must
/// not become no rule).
indirect enum FieldShape: Sendable {
    case value
    case object([String: FieldShape])
    /// An array whose elements each have the shape.
    case list(FieldShape)

    /// An object whose fields are all values.
    static func values(_ names: String...) -> FieldShape {
        .object(Dictionary(uniqueKeysWithValues: names.map { ($0, .value) }))
    }

    /// The fields of an object shape; none for a value.
    var fields: [String: FieldShape] {
        if case .object(let fields) = self { return fields }
        return [:]
    }

    /// Throws for the first member of `json`, at any depth, that the shape does not name.
    func check(_ json: JSONValue, at path: String) throws(AdsError) {
        if case .list(let element) = self, case .array(let elements) = json {
            for (index, value) in elements.enumerated() { try element.check(value, at: "\(path)[\(index)]") }
            return
        }
        guard case .object(let fields) = self, case .object(let members) = json else { return }
        for member in members {
            let memberPath = path.isEmpty ? member.key : "\(path).\(member.key)"
            guard let shape = fields[member.key] else { throw .invalidField(field: memberPath, reason: "no such field") }
            try shape.check(member.value, at: memberPath)
        }
    }
}

/// Reads and writes the ads API's JSON bodies. A body that is not JSON, a field of the wrong
/// type, a missing one or one the endpoint does not know becomes an ``AdsError`` naming it.
enum AdsJSON {
    /// Decodes `bytes`, a JSON object of `shape`, as `Value`: over the members of `base` (a
    /// stored record a partial change applies to), and with `fixed` (ids the server gives) over
    /// both.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: [UInt8], shape: FieldShape, over base: [JSONMember] = [], fixed: [JSONMember] = []
    ) throws(AdsError) -> Value {
        let members = try members(of: bytes)
        try shape.check(.object(members), at: "")
        let given = Set((members + fixed).map(\.key))
        let merged = base.filter { !given.contains($0.key) } + members + fixed
        do {
            return try JSONDecoder().decode(type, from: Data(JSONWriter.string(.object(merged)).utf8))
        } catch let error as DecodingError {
            throw describe(error)
        } catch {
            throw .malformedJSON
        }
    }

    /// The members of a JSON object body.
    static func members(of bytes: [UInt8]) throws(AdsError) -> [JSONMember] {
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            throw .malformedJSON
        }
        guard case .object(let members) = parsed else { throw .invalidField(field: "(body)", reason: "expected a JSON object") }
        return members
    }

    /// The members of `record` encoded, for a partial change to apply over.
    static func members(of record: some Encodable) -> [JSONMember] {
        (try? members(of: encode(record))) ?? []
    }

    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data("null".utf8))
    }

    /// The field a decoding error is about, as a path (`size.w`, `keywords[2]`).
    private static func describe(_ error: DecodingError) -> AdsError {
        switch error {
        case .typeMismatch(let type, let context):
            return .invalidField(field: path(context.codingPath), reason: "expected \(name(of: type))")
        case .valueNotFound(let type, let context):
            return .invalidField(field: path(context.codingPath), reason: "expected \(name(of: type)), not null")
        case .keyNotFound(let key, let context):
            return .invalidField(field: path(context.codingPath + [key]), reason: "is required")
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? .malformedJSON : .invalidField(field: path(context.codingPath), reason: "invalid value")
        @unknown default:
            return .malformedJSON
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "(body)" : text
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Bool.Type: "a boolean"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }
}
