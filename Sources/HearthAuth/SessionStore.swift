import Foundation

/// Where an app's signed-in user is kept across process restarts: the Keychain on Apple
/// platforms, an owner-only file elsewhere.
protocol SessionStore: Sendable {
    /// The user saved by an earlier run, if any.
    func load() -> SessionLoad

    /// Keeps `session`, or forgets the saved user for `nil` (signed out). A failure is reported
    /// on standard error: the sign-in still holds for this run.
    func save(_ session: UserSession?)
}

/// What a store found of the user kept by an earlier run.
enum SessionLoad {
    case found(UserSession)
    case none
    /// The store cannot be read now (a device's Keychain before its first unlock): whoever is
    /// kept there must not be overwritten by this run.
    case unavailable
}

/// The store for one app's user on this platform.
func sessionStore(appName: String, apiKey: String) -> any SessionStore {
    let file = FileSessionStore(appName: appName, apiKey: apiKey)
    #if canImport(Security)
        return KeychainSessionStore(appName: appName, apiKey: apiKey, file: file)
    #else
        return file
    #endif
}

extension SessionStore {
    /// Reports a failure to keep the user.
    static func warn(_ problem: String) {
        FileHandle.standardError.write(Data("HearthAuth: \(problem); the signed-in user will not be kept after this run\n".utf8))
    }
}
