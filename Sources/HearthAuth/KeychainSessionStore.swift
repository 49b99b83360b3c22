#if canImport(Security)
    import Foundation
    import Security

    /// Keeps an app's signed-in user in the data-protection Keychain, as a generic-password item
    /// of the service `hearth-auth` named after the app and its API key. The item is readable
    /// after the device's first unlock (so a background refresh can read it) and is never moved
    /// to another device.
    ///
    /// A program the Keychain refuses for want of entitlements (a macOS command-line tool) keeps
    /// the user in the owner-only file instead; a user kept in that file by an earlier version
    /// moves into the Keychain.
    struct KeychainSessionStore: SessionStore {
        private let account: String
        private let file: FileSessionStore

        init(appName: String, apiKey: String, file: FileSessionStore) {
            account = "\(appName)_\(apiKey)"
            self.file = file
        }

        /// The attributes that name the item.
        private var itemQuery: [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: "hearth-auth",
                kSecAttrAccount as String: account,
                kSecUseDataProtectionKeychain as String: true,
            ]
        }

        func load() -> SessionLoad {
            var query = itemQuery
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            switch status {
            case errSecSuccess:
                guard let data = item as? Data, let session = try? JSONDecoder().decode(UserSession.self, from: data) else {
                    return .none
                }
                return .found(session)
            case errSecItemNotFound:
                guard case .found(let session) = file.load() else { return .none }
                if write(session) == errSecSuccess { file.save(nil) }
                return .found(session)
            case errSecMissingEntitlement:
                return file.load()
            case errSecInteractionNotAllowed:
                Self.warn(Self.describe(status, doing: "reading"))
                return .unavailable
            default:
                Self.warn(Self.describe(status, doing: "reading"))
                return .none
            }
        }

        func save(_ session: UserSession?) {
            let status = session.map(write) ?? SecItemDelete(itemQuery as CFDictionary)
            switch status {
            case errSecSuccess: return
            case errSecItemNotFound where session == nil: return
            case errSecMissingEntitlement: file.save(session)
            default: Self.warn(Self.describe(status, doing: session == nil ? "deleting" : "writing"))
            }
        }

        /// Updates the item, or adds it when there is none.
        private func write(_ session: UserSession) -> OSStatus {
            guard let data = try? JSONEncoder().encode(session) else { return errSecParam }
            let status = SecItemUpdate(itemQuery as CFDictionary, [kSecValueData as String: data] as CFDictionary)
            guard status == errSecItemNotFound else { return status }
            var item = itemQuery
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            return SecItemAdd(item as CFDictionary, nil)
        }

        private static func describe(_ status: OSStatus, doing action: String) -> String {
            let message = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "OSStatus \(status)"
            return "Keychain error while \(action) the signed-in user: \(message)"
        }
    }
#endif
