#if canImport(Security)
    import Foundation
    import Security

    /// Keeps an app's signed-in user in the Keychain, as a generic-password item of the service
    /// `hearth-auth` named after the app and its API key. The item is readable after the device's
    /// first unlock (so a background refresh can read it) and is never moved to another device.
    struct KeychainSessionStore: SessionStore {
        private let account: String

        init(appName: String, apiKey: String) {
            account = "\(appName)_\(apiKey)"
        }

        /// The attributes that name the item.
        private var itemQuery: [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: "hearth-auth",
                kSecAttrAccount as String: account,
            ]
        }

        func load() -> UserSession? {
            var query = itemQuery
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            guard status == errSecSuccess, let data = item as? Data else {
                if status != errSecItemNotFound { Self.warn(Self.describe(status, doing: "reading")) }
                return nil
            }
            return try? JSONDecoder().decode(UserSession.self, from: data)
        }

        /// Updates the item, adds it when there is none, and deletes it for `nil`.
        func save(_ session: UserSession?) {
            guard let session else {
                let status = SecItemDelete(itemQuery as CFDictionary)
                if status != errSecSuccess && status != errSecItemNotFound {
                    Self.warn(Self.describe(status, doing: "deleting"))
                }
                return
            }
            guard let data = try? JSONEncoder().encode(session) else { return }
            var status = SecItemUpdate(itemQuery as CFDictionary, [kSecValueData as String: data] as CFDictionary)
            if status == errSecItemNotFound {
                var item = itemQuery
                item[kSecValueData as String] = data
                item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
                status = SecItemAdd(item as CFDictionary, nil)
            }
            if status != errSecSuccess { Self.warn(Self.describe(status, doing: "writing")) }
        }

        private static func describe(_ status: OSStatus, doing action: String) -> String {
            let message = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "OSStatus \(status)"
            return "Keychain error while \(action) the signed-in user: \(message)"
        }
    }
#endif
