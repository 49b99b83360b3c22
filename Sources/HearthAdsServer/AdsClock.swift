import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The time the ads server decides and counts by: the system's, or in development a time a test
/// sets (`PUT /ads/v1/admin/clock`), which then runs on from there, so that a day of pacing or a
/// frequency cap's window can be tested in seconds. It only moves forward: goals, paces and caps
/// are counted in time order.
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

    /// Makes it `time` now; `nil` goes back to the system's time. Refuses to move back.
    func set(to time: Int64?) throws(AdsError) {
        guard isSettable else { throw .noSuchEndpoint }
        let system = Self.systemNow()
        try offset.withLock { (offset: inout Int64) throws(AdsError) in
            let target = time ?? system
            guard target >= system + offset else {
                throw .invalidField(field: "now", reason: "the clock only moves forward")
            }
            offset = target - system
        }
    }

    private static func systemNow() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
