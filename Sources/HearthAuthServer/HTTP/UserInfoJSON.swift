import HearthCore
import HearthEdge

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Renders accounts as the `UserInfo` JSON of auth spec §6.4: int64 fields as strings, absent
/// fields omitted, `providerUserInfo` with the derived `password` and `phone` entries.
enum UserInfoJSON {
    /// Base64 of `REDACTED`: what end users see instead of their hash (clients need a non-empty one).
    static let redactedHash = "UkVEQUNURUQ="

    /// - Parameter revealsHash: the stored hash and salt (admin listings and lookups) instead of
    ///   the redacted marker.
    static func render(_ user: UserRecord, revealsHash: Bool) -> JSONValue {
        var members: [JSONMember] = []
        func add(_ key: String, _ value: JSONValue?) {
            if let value { members.append(JSONMember(key: key, value: value)) }
        }
        add("localId", .string(user.localId))
        add("email", user.email.map(JSONValue.string))
        add("emailVerified", user.emailVerified.map(JSONValue.bool) ?? (user.email != nil ? .bool(false) : nil))
        add("displayName", user.displayName.map(JSONValue.string))
        add("photoUrl", user.photoUrl.map(JSONValue.string))
        add("phoneNumber", user.phoneNumber.map(JSONValue.string))
        let providers = providerUserInfo(user)
        if !providers.isEmpty { add("providerUserInfo", .array(providers)) }
        if let password = user.password {
            if revealsHash {
                add("passwordHash", .string(Base64URL.standard(password.hash)))
                add("salt", .string(Base64URL.standard(password.salt)))
                // Firebase exports keep hashes only at version 0: the project's own scrypt (§9.6).
                if password.importedWith == nil { add("version", .number(.int(0))) }
            } else {
                add("passwordHash", .string(redactedHash))
            }
        }
        add("passwordUpdatedAt", user.passwordUpdatedAt.map { .number(.int($0)) })
        add("validSince", user.validSince.map { .string(String($0)) })
        if user.disabled { add("disabled", .bool(true)) }
        add("createdAt", .string(String(user.createdAt)))
        add("lastLoginAt", user.lastLoginAt.map { .string(String($0)) })
        add("lastRefreshAt", user.lastRefreshAt.map { .string(rfc3339($0)) })
        add("customAttributes", user.customAttributes.map(JSONValue.string))
        if user.customAuth { add("customAuth", .bool(true)) }
        if user.emailLinkSignin { add("emailLinkSignin", .bool(true)) }
        add("initialEmail", user.initialEmail.map(JSONValue.string))
        add("tenantId", user.tenantId.map(JSONValue.string))
        return .object(members)
    }

    /// The `providerUserInfo` entries (§6.3); every entry carries `federatedId`, which iOS reads as
    /// the provider's uid.
    static func providerUserInfo(_ user: UserRecord) -> [JSONValue] {
        var entries: [JSONValue] = []
        if user.hasPasswordProvider, let email = user.email {
            var entry = [
                JSONMember(key: "providerId", value: .string("password")),
                JSONMember(key: "rawId", value: .string(email)),
                JSONMember(key: "federatedId", value: .string(email)),
                JSONMember(key: "email", value: .string(email)),
            ]
            if let name = user.displayName { entry.append(JSONMember(key: "displayName", value: .string(name))) }
            if let photo = user.photoUrl { entry.append(JSONMember(key: "photoUrl", value: .string(photo))) }
            entries.append(.object(entry))
        }
        if let phone = user.phoneNumber {
            entries.append(
                .object([
                    JSONMember(key: "providerId", value: .string("phone")),
                    JSONMember(key: "rawId", value: .string(phone)),
                    JSONMember(key: "federatedId", value: .string(phone)),
                    JSONMember(key: "phoneNumber", value: .string(phone)),
                ]))
        }
        for provider in user.providers {
            var entry = [
                JSONMember(key: "providerId", value: .string(provider.providerId)),
                JSONMember(key: "rawId", value: .string(provider.rawId)),
                JSONMember(key: "federatedId", value: .string(provider.rawId)),
            ]
            for (key, value) in [
                ("email", provider.email), ("displayName", provider.displayName), ("photoUrl", provider.photoUrl),
                ("screenName", provider.screenName),
            ] {
                if let value { entry.append(JSONMember(key: key, value: .string(value))) }
            }
            entries.append(.object(entry))
        }
        return entries
    }

    /// `2024-01-02T03:04:05.678Z`.
    static func rfc3339(_ milliseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
        return Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}

extension JSONValue {
    /// An object from members, leaving out the `nil` values.
    static func members(_ pairs: [(String, JSONValue?)]) -> JSONValue {
        .object(pairs.compactMap { key, value in value.map { JSONMember(key: key, value: $0) } })
    }
}
