import Foundation
import HearthTestSupport

#if canImport(Security)
    import Security

    /// The Keychain item `makeAuth`'s app named `appName` keeps its user in.
    private func savedSessionQuery(appName: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "hearth-auth",
            kSecAttrAccount as String: "\(appName)_test-api-key",
        ]
    }

    /// Whether the app's user is in the Keychain.
    func savedSessionExists(appName: String) -> Bool {
        SecItemCopyMatching(savedSessionQuery(appName: appName) as CFDictionary, nil) == errSecSuccess
    }

    /// Whether the app's user is in the Keychain, kept on this device only (the file-based
    /// Keychain of macOS keeps no accessibility, so there being the item is enough).
    func savedSessionIsPrivate(appName: String) -> Bool {
        var query = savedSessionQuery(appName: appName)
        query[kSecReturnAttributes as String] = true
        var attributes: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &attributes) == errSecSuccess,
            let found = attributes as? [String: Any]
        else { return false }
        guard let accessible = found[kSecAttrAccessible as String] as? String else { return true }
        return accessible == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String
    }
#else
    /// The file `makeAuth`'s app named `appName` keeps its user in.
    private func savedSessionPath(appName: String) -> String {
        sdkUserDataDirectory + "/hearth-auth/\(appName)_test-api-key.json"
    }

    /// Whether the app's user is in its file.
    func savedSessionExists(appName: String) -> Bool {
        FileManager.default.fileExists(atPath: savedSessionPath(appName: appName))
    }

    /// Whether the app's user is in a file only its owner may read or write.
    func savedSessionIsPrivate(appName: String) -> Bool {
        let attributes = try? FileManager.default.attributesOfItem(atPath: savedSessionPath(appName: appName))
        return (attributes?[.posixPermissions] as? NSNumber)?.intValue == 0o600
    }
#endif
