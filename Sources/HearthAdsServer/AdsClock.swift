import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The time the ads server decides and counts by: the system's, or in development a time a test
/// sets (`PUT /ads/v1/admin/clock`), which then runs on from there, so that a day of pacing or a
/// frequency cap's window can be tested in seconds.
package final class AdsClock: Sendable {
    /// Whether a test may set the time (development only).
    let isSettable: Bool
    private let offset = Mutex<Int64>(0)

    package init(isSettable: Bool) {
        self.isSettable = isSettable
    }

    /// Now, in milliseconds since 1970.
    func now() -> Int64 {
        Self.systemNow() + offset.withLock { $0 }
    }

    /// Makes it `time` now; `nil` goes back to the system's time.
    func set(to time: Int64?) throws(AdsError) {
        guard isSettable else { throw .noSuchEndpoint }
        offset.withLock { $0 = time.map { $0 - Self.systemNow() } ?? 0 }
    }

    private static func systemNow() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
