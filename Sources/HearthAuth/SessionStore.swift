import Foundation
@_spi(HearthSDK) import HearthApp

/// Keeps an app's signed-in user across process restarts: a JSON file readable by its owner
/// alone, under the user's data directory (`~/.local/share/hearth-auth` on Linux, Application
/// Support on Apple platforms).
struct SessionStore: Sendable {
    let path: String

    init(appName: String, apiKey: String) {
        let directory = (SDKDirectories.userData as NSString).appendingPathComponent("hearth-auth")
        let safe = "\(appName)_\(apiKey)".map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        path = (directory as NSString).appendingPathComponent(String(safe) + ".json")
    }

    func load() -> UserSession? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(UserSession.self, from: data)
    }

    /// Writes `session`, or removes the file for `nil` (signed out).
    func save(_ session: UserSession?) {
        guard let session else {
            try? FileManager.default.removeItem(atPath: path)
            return
        }
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard let data = try? JSONEncoder().encode(session) else { return }
        // Written beside the file, owner-only from the start, then renamed over it in one step.
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        rename(temporary, path)
    }
}
