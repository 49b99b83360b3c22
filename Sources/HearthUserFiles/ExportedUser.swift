import HearthCore

/// One user of `accounts:batchGet` as Firebase's CLI exports it (auth spec §9.5, §9.6): the
/// exported keys only, `lastLoginAt` renamed `lastSignedInAt`, the ten providers with their five
/// keys, and the password hash and salt, in standard base64, only for `version` 0 (hashes of the
/// project's own scrypt, which another project can import with the same parameters).
package struct ExportedUser {
    private let user: JSONValue

    package init(_ user: JSONValue) {
        self.user = user
    }

    /// The keys copied as they are, in the order exports write them, with their names in the file.
    private static let keys = [
        ("localId", "localId"), ("email", "email"), ("emailVerified", "emailVerified"), ("passwordHash", "passwordHash"),
        ("salt", "salt"), ("displayName", "displayName"), ("photoUrl", "photoUrl"), ("lastLoginAt", "lastSignedInAt"),
        ("createdAt", "createdAt"), ("phoneNumber", "phoneNumber"), ("disabled", "disabled"),
        ("customAttributes", "customAttributes"), ("mfaInfo", "mfaInfo"),
    ]

    /// The user as an object of a JSON export.
    package var json: JSONValue {
        var members = Self.keys.compactMap { key, name in value(key).map { JSONMember(key: name, value: $0) } }
        if case .array(let providers)? = user["providerUserInfo"] {
            let kept = providers.filter { $0["providerId"]?.stringValue.map(UserFileLayout.providerIDs.contains) ?? false }
            let entries = kept.map { provider in
                JSONValue.compactObject(UserFileLayout.providerKeys.map { ($0, provider[$0]) })
            }
            members.append(JSONMember(key: "providerUserInfo", value: .array(entries)))
        }
        return .object(members)
    }

    /// The user as a line of a CSV export: 52 columns and a trailing comma. Custom claims are
    /// always quoted; other fields when they need it.
    package var csvLine: String {
        var cells = [String](repeating: "", count: UserFileLayout.columnCount)
        func put(_ column: UserFileLayout.Column, _ key: String) {
            cells[column.rawValue] = value(key).map(Self.text) ?? ""
        }
        put(.localId, "localId")
        put(.email, "email")
        cells[UserFileLayout.Column.emailVerified.rawValue] = value("emailVerified") == .bool(true) ? "true" : "false"
        put(.passwordHash, "passwordHash")
        put(.salt, "salt")
        put(.displayName, "displayName")
        put(.photoUrl, "photoUrl")
        if case .array(let providers)? = user["providerUserInfo"] {
            for provider in providers {
                guard let column = UserFileLayout.providers.first(where: { $0.id == provider["providerId"]?.stringValue })?.column
                else { continue }
                for (offset, key) in ["rawId", "email", "displayName", "photoUrl"].enumerated() {
                    cells[column + offset] = provider[key].map(Self.text) ?? ""
                }
            }
        }
        put(.createdAt, "createdAt")
        put(.lastSignedInAt, "lastLoginAt")
        put(.phoneNumber, "phoneNumber")
        put(.disabled, "disabled")
        let claims = value("customAttributes").map(Self.text)
        return cells.enumerated().map { column, cell in
            column == UserFileLayout.Column.customAttributes.rawValue
                ? claims.map { CSVField.encode($0, alwaysQuoted: true) } ?? "" : CSVField.encode(cell)
        }.joined(separator: ",") + ","
    }

    /// The exported value of `key`: hashes and salts only at version 0 and in standard base64.
    private func value(_ key: String) -> JSONValue? {
        guard key == "passwordHash" || key == "salt" else { return user[key] }
        guard case .number(let version)? = user["version"], version.doubleValue == 0,
            let text = user[key]?.stringValue, let bytes = UserFileBase64.decode(text)
        else { return nil }
        return .string(UserFileBase64.standard(bytes))
    }

    /// A value as CSV text: strings as they are, other values as JSON.
    private static func text(_ value: JSONValue) -> String {
        value.stringValue ?? JSONWriter.string(value)
    }
}
