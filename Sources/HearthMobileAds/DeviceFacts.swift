import Foundation
@_spi(HearthSDK) import HearthApp

/// What a decide request says about the device, for campaigns' targeting and frequency caps.
enum DeviceFacts {
    /// The platform, as campaigns' `targeting.platforms` name it.
    static var platform: String {
        #if os(iOS)
            "ios"
        #elseif os(macOS)
            "macos"
        #elseif os(tvOS)
            "tvos"
        #elseif os(watchOS)
            "watchos"
        #elseif os(visionOS)
            "visionos"
        #elseif os(Android)
            "android"
        #elseif os(Windows)
            "windows"
        #else
            "linux"
        #endif
    }

    /// The operating system's version, `major.minor.patch`.
    static var osVersion: String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }

    /// The app's version (`CFBundleShortVersionString`), when the app has a bundle saying it.
    static var appVersion: String? {
        Bundle.main.infoDictionary?["CFBundleShortVersionString"] as? String
    }

    /// The user's locale (`en_GB`), when one is set.
    static var locale: String? {
        let identifier = Locale.current.identifier
        return identifier.isEmpty ? nil : identifier
    }

    /// A random id of this installation, kept in the SDK's data directory, so that frequency
    /// caps count what this viewer saw. It names no person and no device.
    static let viewerKey: String = {
        let directory = (SDKDirectories.userData as NSString).appendingPathComponent("hearth-ads")
        let path = (directory as NSString).appendingPathComponent("viewer-key")
        if let kept = try? String(contentsOfFile: path, encoding: .utf8), !kept.isEmpty { return kept }
        let made = UUID().uuidString.lowercased()
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try? made.write(toFile: path, atomically: true, encoding: .utf8)
        return made
    }()
}
