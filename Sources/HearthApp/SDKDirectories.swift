import Foundation

/// Where the SDK modules keep files for the user: Application Support on Apple platforms, the
/// XDG data directory (`~/.local/share`) elsewhere. Not part of Firebase's API.
@_spi(HearthSDK)
public enum SDKDirectories {
    /// The per-user data directory the modules' own directories go in.
    public static var userData: String {
        #if canImport(Darwin)
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first!.path
        #else
            ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
                ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        #endif
    }
}
