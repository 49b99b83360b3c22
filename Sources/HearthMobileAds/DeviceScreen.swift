import Foundation

#if os(iOS)
    import UIKit
#elseif os(macOS)
    import AppKit
#endif

/// The screen banners are sized for: the device's on iOS and macOS; elsewhere, where banners
/// are headless, the one the program says it simulates (a 390×844 phone held upright unless
/// told otherwise).
@MainActor
public enum DeviceScreen {
    #if os(iOS)
        /// The main screen's size in points, as currently held.
        public static var size: CGSize { UIScreen.main.bounds.size }
    #elseif os(macOS)
        /// The main screen's size in points.
        public static var size: CGSize { NSScreen.main?.frame.size ?? CGSize(width: 1440, height: 900) }
    #else
        /// The simulated screen's size in points, as currently held.
        public static var size = CGSize(width: 390, height: 844)
    #endif
}
