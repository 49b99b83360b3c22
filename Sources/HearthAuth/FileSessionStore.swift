import Foundation
@_spi(HearthSDK) import HearthApp

/// Keeps an app's signed-in user in a JSON file readable by its owner alone, under the user's
/// data directory (`$XDG_DATA_HOME/hearth-auth`, by default `~/.local/share/hearth-auth`; on
/// Apple platforms Application Support, for programs that may not use the Keychain).
struct FileSessionStore: SessionStore {
    let path: String

    init(appName: String, apiKey: String) {
        let directory = (SDKDirectories.userData as NSString).appendingPathComponent("hearth-auth")
        let safe = "\(appName)_\(apiKey)".map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        path = (directory as NSString).appendingPathComponent(String(safe) + ".json")
    }

    func load() -> SessionLoad {
        guard let data = FileManager.default.contents(atPath: path),
            let session = try? JSONDecoder().decode(UserSession.self, from: data)
        else { return .none }
        return .found(session)
    }

    /// Writes `session` to a temporary file created owner-only, then renames it over the old
    /// one; removes the file for `nil`.
    func save(_ session: UserSession?) {
        guard let session else {
            try? FileManager.default.removeItem(atPath: path)
            return
        }
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o700)
        guard let data = try? JSONEncoder().encode(session) else { return }
        let temporary = path + ".tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { return Self.warn("cannot create \(temporary)") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == data.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            return Self.warn("cannot write \(path)")
        }
    }
}
