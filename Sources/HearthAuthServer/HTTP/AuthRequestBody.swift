import HearthCore

/// The fields of an Identity Toolkit request, from a JSON body, a form body or the query string,
/// read as Google's REST mapping reads them (auth spec §1.3).
///
/// Keys are normalised to camelCase (`return_secure_token` is `returnSecureToken`); numbers
/// are accepted where the schema has an int64 string; enums are accepted as names or as their
/// protobuf index; unknown fields are ignored.
struct AuthRequestBody: Sendable {
    private(set) var fields: [String: JSONValue]

    init(fields: [String: JSONValue] = [:]) {
        self.fields = fields
    }

    /// Reads a JSON object body; an empty body is an empty object.
    init(json bytes: [UInt8]) throws(AuthError) {
        guard bytes.contains(where: { !Self.isWhitespace($0) }) else {
            self.init()
            return
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw AuthError.invalidArgument("Unexpected token in the request body: \(error)")
        }
        guard case .object(let members) = value else {
            throw AuthError.invalidArgument("Root element must be a message.")
        }
        self.init(fields: Self.normalised(members))
    }

    /// Reads `name=value&…` pairs (a form body or a query string) as string fields.
    init(form parameters: [String: String]) {
        var fields: [String: JSONValue] = [:]
        for (name, value) in parameters { fields[Self.camelCase(name)] = .string(value) }
        self.init(fields: fields)
    }

    /// Adds the fields of `other` that this body lacks.
    mutating func merge(missingFrom other: AuthRequestBody) {
        fields.merge(other.fields) { mine, _ in mine }
    }

    subscript(key: String) -> JSONValue? {
        get { fields[key].flatMap { $0 == .null ? nil : $0 } }
        set { fields[key] = newValue }
    }

    func has(_ key: String) -> Bool { self[key] != nil }

    /// A string field; a number is accepted in its decimal form (int64 fields).
    func string(_ key: String) throws(AuthError) -> String? {
        switch self[key] {
        case nil: return nil
        case .string(let text)?: return text
        case .number(let number)?: return number.description
        case .bool(let flag)?: return flag ? "true" : "false"
        default: throw AuthError.invalidArgument("\(key) (TYPE_STRING), expected a string.")
        }
    }

    /// A string field that must be present and non-empty, else `missing`.
    func required(_ key: String, else missing: AuthError) throws(AuthError) -> String {
        guard let value = try string(key), !value.isEmpty else { throw missing }
        return value
    }

    func bool(_ key: String) throws(AuthError) -> Bool? {
        switch self[key] {
        case nil: return nil
        case .bool(let flag)?: return flag
        case .string("true")?: return true
        case .string("false")?: return false
        default: throw AuthError.invalidArgument("\(key) (TYPE_BOOL), expected a boolean.")
        }
    }

    /// An int64 field, sent as a JSON number or a decimal string.
    func int64(_ key: String) throws(AuthError) -> Int64? {
        switch self[key] {
        case nil: return nil
        case .number(let number)?:
            switch number {
            case .int(let value): return value
            case .double(let value) where value.rounded() == value && abs(value) < 9e18: return Int64(value)
            case .double: break
            }
        case .string(let text)?:
            if let value = Int64(text) { return value }
        default: break
        }
        throw AuthError.invalidArgument("\(key) (TYPE_INT64), expected an integer.")
    }

    /// An array of strings; a single string counts as a one-element array.
    func strings(_ key: String) throws(AuthError) -> [String] {
        switch self[key] {
        case nil: return []
        case .string(let text)?: return [text]
        case .array(let items)?:
            var strings: [String] = []
            for item in items {
                guard case .string(let text) = item else {
                    throw AuthError.invalidArgument("\(key) (TYPE_STRING), expected strings.")
                }
                strings.append(text)
            }
            return strings
        default: throw AuthError.invalidArgument("\(key) (TYPE_STRING), expected a list of strings.")
        }
    }

    /// An array of objects, each read as a body of its own.
    func objects(_ key: String) throws(AuthError) -> [AuthRequestBody] {
        switch self[key] {
        case nil: return []
        case .array(let items)?:
            var bodies: [AuthRequestBody] = []
            for item in items {
                guard case .object(let members) = item else { throw AuthError.invalidArgument("\(key), expected objects.") }
                bodies.append(AuthRequestBody(fields: Self.normalised(members)))
            }
            return bodies
        default: throw AuthError.invalidArgument("\(key), expected a list of objects.")
        }
    }

    /// An object field, read as a body of its own.
    func object(_ key: String) throws(AuthError) -> AuthRequestBody? {
        switch self[key] {
        case nil: return nil
        case .object(let members)?: return AuthRequestBody(fields: Self.normalised(members))
        default: throw AuthError.invalidArgument("\(key), expected an object.")
        }
    }

    /// The object holding the last member of a dotted `path` (`idpConfig.ssoUrl`: the `idpConfig`
    /// object) and that member's name; an empty object when one on the way is absent.
    func member(_ path: String) throws(AuthError) -> (object: AuthRequestBody, key: String) {
        var segments = path.split(separator: ".").map(String.init)
        let key = segments.removeLast()
        var object = self
        for segment in segments { object = try object.object(segment) ?? AuthRequestBody() }
        return (object, key)
    }

    /// An enum field, by name or by its index in `names` (Android sends indexes).
    func enumeration(_ key: String, names: [String]) throws(AuthError) -> String? {
        switch self[key] {
        case nil: return nil
        case .string(let name)? where names.contains(name): return name
        case .number(.int(let index))? where index >= 0 && index < names.count: return names[Int(index)]
        default: throw AuthError.invalidArgument("Invalid value at '\(key)' (TYPE_ENUM).")
        }
    }

    /// Enum values in a list (`deleteAttribute`).
    func enumerations(_ key: String, names: [String]) throws(AuthError) -> [String] {
        guard case .array(let items)? = self[key] else {
            return try enumeration(key, names: names).map { [$0] } ?? []
        }
        var values: [String] = []
        for item in items {
            values.append(try AuthRequestBody(fields: [key: item]).enumeration(key, names: names)!)
        }
        return values
    }

    private static func normalised(_ members: [JSONMember]) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for member in members { fields[camelCase(member.key)] = normalised(member.value) }
        return fields
    }

    private static func normalised(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            .object(members.map { JSONMember(key: camelCase($0.key), value: normalised($0.value)) })
        case .array(let items): .array(items.map(normalised))
        default: value
        }
    }

    /// `snake_case` → `snakeCase`; names without underscores are unchanged.
    static func camelCase(_ name: String) -> String {
        guard name.contains("_") else { return name }
        var result = ""
        var upperNext = false
        for character in name {
            if character == "_" {
                upperNext = !result.isEmpty
            } else {
                result.append(upperNext ? Character(character.uppercased()) : character)
                upperNext = false
            }
        }
        return result
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
