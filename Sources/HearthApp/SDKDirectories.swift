import Foundation

/// Where the SDK modules keep files for the user: `$XDG_DATA_HOME` when it is set; otherwise
/// Application Support on Apple platforms (Caches on tvOS) and `~/.local/share` elsewhere. Not
/// part of Firebase's API.
@_spi(HearthSDK)
public enum SDKDirectories {
    /// The per-user data directory the modules' own directories go in.
    public static var userData: String {
        if let directory = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !directory.isEmpty { return directory }
        #if os(tvOS)
            // tvOS gives apps no lasting storage outside the caches directory.
            return FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first!.path
        #elseif canImport(Darwin)
            return FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first!.path
        #else
            return (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        #endif
    }
}
