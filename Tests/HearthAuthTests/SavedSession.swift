import Foundation
import HearthTestSupport
import HearthTesting
import Testing

#if canImport(Security)
    import Security
#endif

// Where `makeAuth`'s apps keep their users: the Keychain item on Apple platforms (when the test
// program may use it), else the owner-only file.

/// The file the app named `appName` keeps its user in.
private func savedSessionPath(appName: String) -> String {
    sdkUserDataDirectory + "/hearth-auth/\(appName)_\(TestHearth.apiKey).json"
}

#if canImport(Security)
    private func keychainQuery(appName: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "hearth-auth",
            kSecAttrAccount as String: "\(appName)_\(TestHearth.apiKey)",
            kSecUseDataProtectionKeychain as String: true,
        ]
    }

    /// The item's data and attributes, if the Keychain has it.
    private func keychainItem(appName: String) -> [String: Any]? {
        var query = keychainQuery(appName: appName)
        query[kSecReturnData as String] = true
        query[kSecReturnAttributes as String] = true
        var item: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess else { return nil }
        return item as? [String: Any]
    }
#endif

/// Whether the app's user is kept.
func savedSessionExists(appName: String) -> Bool {
    #if canImport(Security)
        if keychainItem(appName: appName) != nil { return true }
    #endif
    return FileManager.default.fileExists(atPath: savedSessionPath(appName: appName))
}

/// Whether the app's user is kept where only its owner may read it: a Keychain item of this
/// device only, or a file of mode 0600.
func savedSessionIsPrivate(appName: String) -> Bool {
    #if canImport(Security)
        if let item = keychainItem(appName: appName) {
            return item[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String
        }
    #endif
    let attributes = try? FileManager.default.attributesOfItem(atPath: savedSessionPath(appName: appName))
    return (attributes?[.posixPermissions] as? NSNumber)?.intValue == 0o600
}

/// Makes the kept user's ID token expired, as if the next run started hours later.
func expireSavedSession(appName: String) throws {
    func expired(_ data: Data) throws -> Data {
        var session = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        session["expirationDate"] = 0  // the reference date, 2001
        return try JSONSerialization.data(withJSONObject: session)
    }
    #if canImport(Security)
        if let item = keychainItem(appName: appName), let data = item[kSecValueData as String] as? Data {
            let update = [kSecValueData as String: try expired(data)]
            try #require(SecItemUpdate(keychainQuery(appName: appName) as CFDictionary, update as CFDictionary) == errSecSuccess)
            return
        }
    #endif
    let path = savedSessionPath(appName: appName)
    let data = try #require(FileManager.default.contents(atPath: path))
    try expired(data).write(to: URL(fileURLWithPath: path))
}
