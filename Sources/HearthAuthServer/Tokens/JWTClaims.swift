import HearthCore
import JWTKit

/// A JWT payload as a JSON object, so that tokens carry any claims (custom claims included) and
/// Hearth checks expiry, audience and issuer itself, with Firebase's error codes.
struct JWTClaims: JWTPayload, Equatable {
    var json: JSONValue

    init(_ json: JSONValue) {
        self.json = json
    }

    subscript(key: String) -> JSONValue? { json[key] }

    /// A string claim.
    func string(_ key: String) -> String? {
        guard case .string(let value)? = json[key] else { return nil }
        return value
    }

    /// A numeric claim in whole seconds.
    func seconds(_ key: String) -> Int64? {
        guard case .number(let number)? = json[key] else { return nil }
        switch number {
        case .int(let value): return value
        case .double(let value): return value.isFinite ? Int64(value) : nil
        }
    }

    /// Signature checks happen in the key collection; claim checks in ``TokenService``.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    init(from decoder: any Decoder) throws {
        json = try CodableJSON(from: decoder).value
    }

    func encode(to encoder: any Encoder) throws {
        try CodableJSON(json).encode(to: encoder)
    }
}

/// A ``JSONValue`` through `Codable`, for libraries that encode and decode with it.
private struct CodableJSON: Codable {
    let value: JSONValue

    init(_ value: JSONValue) {
        self.value = value
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            value = .object(
                try object.allKeys.map { key in
                    JSONMember(key: key.stringValue, value: try object.decode(CodableJSON.self, forKey: key).value)
                })
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(CodableJSON.self).value) }
            value = .array(items)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let flag = try? single.decode(Bool.self) {
            value = .bool(flag)
        } else if let integer = try? single.decode(Int64.self) {
            value = .number(.int(integer))
        } else if let double = try? single.decode(Double.self) {
            value = .number(.double(double))
        } else {
            value = .string(try single.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let flag):
            var single = encoder.singleValueContainer()
            try single.encode(flag)
        case .number(.int(let integer)):
            var single = encoder.singleValueContainer()
            try single.encode(integer)
        case .number(.double(let double)):
            var single = encoder.singleValueContainer()
            try single.encode(double)
        case .string(let text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        case .array(let items):
            var array = encoder.unkeyedContainer()
            for item in items { try array.encode(CodableJSON(item)) }
        case .object(let members):
            var object = encoder.container(keyedBy: Key.self)
            for member in members { try object.encode(CodableJSON(member.value), forKey: Key(stringValue: member.key)) }
        }
    }
}
