import Foundation
import HearthCore

/// Turns the users of an import file into `accounts:batchCreate` entries, refusing what
/// Firebase's CLI refuses (auth spec §9.4) and, beyond it, values of a type the server would
/// refuse for the whole batch rather than for the one user.
package struct ImportEntryConverter: Sendable {
    /// Whether password hashes and salts go to the server: only with `--hash-algo`.
    package let keepsPasswords: Bool

    package init(keepsPasswords: Bool) {
        self.keepsPasswords = keepsPasswords
    }

    /// Why a user cannot be imported; the reader adds where the user is.
    package struct Refusal: Error {
        package let reason: String

        init(_ reason: String) {
            self.reason = reason
        }
    }

    private static let stringKeys: Set<String> = ["localId", "email", "displayName", "photoUrl", "phoneNumber"]
    private static let booleanKeys: Set<String> = ["emailVerified", "disabled"]

    /// The entry for one user of a JSON file: the keys of the file, `lastSignedInAt` renamed
    /// `lastLoginAt`, times as numbers, hashes and salts in URL-safe base64; `null` values left out.
    package func entry(fromJSON user: JSONValue) throws(Refusal) -> JSONValue {
        guard case .object(let members) = user else { throw Refusal("a user must be a JSON object") }
        var entry: [JSONMember] = []
        for member in members {
            let key = member.key
            let value = member.value
            guard UserFileLayout.userKeys.contains(key) else {
                throw Refusal(
                    "unsupported key \"\(key)\" (allowed: \(UserFileLayout.userKeys.sorted().joined(separator: ", ")))")
            }
            switch key {
            case _ where value == .null:
                continue
            case "passwordHash", "salt":
                guard case .string(let text) = value else { throw Refusal("\(key) must be a base64 string") }
                entry += try passwordMember(key, text)
            case "createdAt", "lastSignedInAt":
                entry.append(JSONMember(key: key == "createdAt" ? key : "lastLoginAt", value: try Self.milliseconds(key, value)))
            case "providerUserInfo":
                guard case .array(let providers) = value else { throw Refusal("providerUserInfo must be an array") }
                for provider in providers { try Self.checkProvider(provider) }
                entry.append(member)
            case "customAttributes":
                guard case .string(let claims) = value else { throw Refusal("customAttributes must be a string holding a JSON object") }
                try Self.checkClaims(claims)
                entry.append(member)
            case "mfaInfo":
                guard case .array = value else { throw Refusal("mfaInfo must be an array") }
                entry.append(member)
            case _ where Self.stringKeys.contains(key):
                guard case .string = value else { throw Refusal("\(key) must be a string") }
                entry.append(member)
            default:
                guard Self.booleanKeys.contains(key), case .bool = value else { throw Refusal("\(key) must be true or false") }
                entry.append(member)
            }
        }
        return .object(entry)
    }

    /// The entry for one CSV record: cells trimmed and stripped of one pair of surrounding quotes,
    /// empty cells left out, as Firebase's CLI reads them.
    package func entry(fromCSV fields: [String]) throws(Refusal) -> JSONValue {
        let cells = fields.map(Self.cell)
        func cell(_ column: Int) -> String? { column < cells.count ? cells[column] : nil }
        func cell(_ column: UserFileLayout.Column) -> String? { cell(column.rawValue) }
        var entry: [JSONMember] = []
        func add(_ key: String, _ value: JSONValue?) {
            if let value { entry.append(JSONMember(key: key, value: value)) }
        }
        add("localId", cell(.localId).map(JSONValue.string))
        add("email", cell(.email).map(JSONValue.string))
        add("emailVerified", .bool(cell(.emailVerified) == "true"))
        for (key, column) in [("passwordHash", UserFileLayout.Column.passwordHash), ("salt", .salt)] {
            if let text = cell(column) { entry += try passwordMember(key, text) }
        }
        add("displayName", cell(.displayName).map(JSONValue.string))
        add("photoUrl", cell(.photoUrl).map(JSONValue.string))
        let providers = UserFileLayout.providers.compactMap { provider -> JSONValue? in
            guard let rawId = cell(provider.column) else { return nil }
            return .compactObject([
                ("providerId", .string(provider.id)), ("rawId", .string(rawId)),
                ("email", cell(provider.column + 1).map(JSONValue.string)),
                ("displayName", cell(provider.column + 2).map(JSONValue.string)),
                ("photoUrl", cell(provider.column + 3).map(JSONValue.string)),
            ])
        }
        if !providers.isEmpty { add("providerUserInfo", .array(providers)) }
        if let text = cell(.createdAt) { add("createdAt", try Self.milliseconds("createdAt", .string(text))) }
        if let text = cell(.lastSignedInAt) { add("lastLoginAt", try Self.milliseconds("lastSignedInAt", .string(text))) }
        add("phoneNumber", cell(.phoneNumber).map(JSONValue.string))
        if let text = cell(.disabled) {
            guard text == "true" || text == "false" else { throw Refusal("disabled must be true or false, not \"\(text)\"") }
            add("disabled", .bool(text == "true"))
        }
        if let claims = cell(.customAttributes) {
            try Self.checkClaims(claims)
            add("customAttributes", .string(claims))
        }
        return .object(entry)
    }

    /// `passwordHash` or `salt` in URL-safe base64; nothing when passwords are not imported or
    /// the value is empty.
    private func passwordMember(_ key: String, _ text: String) throws(Refusal) -> [JSONMember] {
        guard let bytes = UserFileBase64.decode(text) else {
            throw Refusal(key == "salt" ? "Password salt should be base64 encoded." : "Password hash should be base64 encoded.")
        }
        guard keepsPasswords, !bytes.isEmpty else { return [] }
        return [JSONMember(key: key, value: .string(UserFileBase64.urlSafe(bytes)))]
    }

    /// A CSV cell as Firebase's CLI reads it: trimmed, without one pair of surrounding quotes,
    /// `nil` when empty.
    private static func cell(_ field: String) -> String? {
        var text = field.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            text = String(text.dropFirst().dropLast())
        }
        return text.isEmpty ? nil : text
    }

    /// A time in milliseconds since 1970, given as a number or a decimal string (as exports write it).
    private static func milliseconds(_ key: String, _ value: JSONValue) throws(Refusal) -> JSONValue {
        switch value {
        case .number(.int(let milliseconds)): return .number(.int(milliseconds))
        case .string(let text): if let milliseconds = Int64(text) { return .number(.int(milliseconds)) }
        default: break
        }
        throw Refusal("\(key) must be a whole number of milliseconds")
    }

    /// A `providerUserInfo` entry of a JSON file: one of the ten providers, the five keys only.
    private static func checkProvider(_ provider: JSONValue) throws(Refusal) {
        guard case .object(let members) = provider else { throw Refusal("providerUserInfo entries must be JSON objects") }
        for member in members {
            guard UserFileLayout.providerKeys.contains(member.key) else {
                throw Refusal(
                    "providerUserInfo has the unsupported key \"\(member.key)\" (allowed: \(UserFileLayout.providerKeys.joined(separator: ", ")))"
                )
            }
            guard case .string = member.value else { throw Refusal("providerUserInfo \(member.key) must be a string") }
        }
        guard case .string(let id)? = provider["providerId"], UserFileLayout.providerIDs.contains(id) else {
            throw Refusal(
                "providerUserInfo has an unsupported providerId (supported: \(UserFileLayout.providers.map(\.id).joined(separator: ", ")))")
        }
    }

    /// Custom claims: a JSON object written as a string.
    private static func checkClaims(_ claims: String) throws(Refusal) {
        guard case .object? = try? JSONParser.parse(claims) else { throw Refusal("customAttributes must be a JSON object") }
    }
}
