import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The live feed of requests on every product that the console's requests view follows.
///
/// Nothing is recorded while nobody follows: ``isFollowed`` is one atomic load, checked before
/// any work is spent on a record. While followed, the feed publishes what its ``FeedBudget``
/// admits. Each follower gets its own bounded stream; a follower that falls behind loses its
/// oldest records, never slows a request.
package final class RequestFeed: Sendable {
    private let followerCount = Atomic<Int>(0)
    private let followers = Mutex<[Int: AsyncStream<RequestRecord>.Continuation]>([:])
    private let nextFollower = Atomic<Int>(0)
    /// How many records a follower may fall behind by before it loses the oldest.
    private let bufferLimit: Int
    private let budget: Mutex<FeedBudget>

    /// A feed that publishes up to `recordsPerSecond` records a second, and beyond them up to
    /// `failedPerSecond` of failed requests.
    package init(bufferLimit: Int = 1000, recordsPerSecond: Int = 200, failedPerSecond: Int = 1000) {
        self.bufferLimit = bufferLimit
        self.budget = Mutex(FeedBudget(perSecond: recordsPerSecond, failedPerSecond: failedPerSecond))
    }

    /// Whether anyone follows the feed now.
    package var isFollowed: Bool { followerCount.load(ordering: .relaxed) > 0 }

    /// Sends `record` to every follower.
    private func publish(_ record: RequestRecord) {
        followers.withLock { followers in
            for continuation in followers.values { continuation.yield(record) }
        }
    }

    /// The records published from now until the stream is dropped.
    package func follow() -> AsyncStream<RequestRecord> {
        let id = nextFollower.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(
            of: RequestRecord.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.followers.withLock { _ = $0.removeValue(forKey: id) }
            self.followerCount.subtract(1, ordering: .relaxed)
        }
        followers.withLock { $0[id] = continuation }
        followerCount.add(1, ordering: .relaxed)
        return stream
    }

    /// Serves one request through `respond` and publishes its record when the feed is
    /// followed; otherwise only calls `respond`.
    @discardableResult
    package func recording<Outcome>(
        product: String, transport: String, method: String, path: String,
        _ respond: () async -> Outcome, status: (Outcome) -> (status: String, failed: Bool)
    ) async -> Outcome {
        guard isFollowed else { return await respond() }
        let trace = RequestTrace()
        let clock = ContinuousClock()
        let start = clock.now
        let time = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let outcome = await RequestTrace.$current.withValue(trace) { await respond() }
        let elapsed = (clock.now - start).components
        let (status, failed) = status(outcome)
        guard let leftOut = budget.withLock({ $0.admit(failed: failed, second: time / 1000) }) else { return outcome }
        publish(
            RequestRecord(
                product: product, transport: transport, method: method, path: path, status: status, failed: failed,
                time: time, micros: elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000,
                trace: trace.findings, fromConsole: RequestTrace.isFromConsole, leftOutBefore: leftOut))
        return outcome
    }
}
