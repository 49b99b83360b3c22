import HearthCore

/// The fields of a JSON object, read without a decoder on the paths every request takes
/// (`decide`, `events`, tokens): each value of the wrong type is an ``AdsError`` naming its path,
/// as the decoder's would be. A `null` reads as absent.
struct JSONFields {
    private let members: [JSONMember]
    private let path: String

    /// The object `json`, found at `path` (empty for the body).
    init(_ json: JSONValue, at path: String = "") throws(AdsError) {
        guard case .object(let members) = json else {
            throw .invalidField(field: path.isEmpty ? "(body)" : path, reason: "expected an object")
        }
        self.members = members
        self.path = path
    }

    private func field(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func value(_ key: String) -> JSONValue? {
        guard let value = members.last(where: { $0.key == key })?.value, value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(AdsError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw .invalidField(field: field(key), reason: "expected a string") }
        return text
    }

    func requiredString(_ key: String) throws(AdsError) -> String {
        guard let text = try string(key) else { throw .invalidField(field: field(key), reason: "is required") }
        return text
    }

    func int(_ key: String) throws(AdsError) -> Int? {
        guard let value = value(key) else { return nil }
        switch value {
        case .number(.int(let number)) where Int64(Int.min)...Int64(Int.max) ~= number: return Int(number)
        case .number(.double(let number)) where number.rounded() == number && abs(number) < 1e15: return Int(number)
        default: throw .invalidField(field: field(key), reason: "expected an integer")
        }
    }

    func requiredInt(_ key: String) throws(AdsError) -> Int {
        guard let number = try int(key) else { throw .invalidField(field: field(key), reason: "is required") }
        return number
    }

    func object(_ key: String) throws(AdsError) -> JSONFields? {
        guard let value = value(key) else { return nil }
        return try JSONFields(value, at: field(key))
    }

    func strings(_ key: String) throws(AdsError) -> [String]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw .invalidField(field: field(key), reason: "expected an array") }
        var strings: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw .invalidField(field: "\(field(key))[\(index)]", reason: "expected a string")
            }
            strings.append(text)
        }
        return strings
    }
}
