import Dispatch

/// The parts every fan-out benchmark shares: one writer at a steady rate, each write carrying
/// its monotonic send time, then waiting for the listeners and reporting their latencies.
enum Fanout {
    /// Calls `write` `count` times, `rate` times a second, with the write's number and its send
    /// time in nanoseconds.
    static func paceWrites(
        rate: Int, count: Int, _ write: (_ index: Int, _ sent: UInt64) async throws -> Void
    ) async throws {
        let clock = ContinuousClock()
        let interval = Duration.nanoseconds(1_000_000_000 / rate)
        var next = clock.now
        for index in 1...count {
            next += interval
            try await clock.sleep(until: next)
            try await write(index, DispatchTime.now().uptimeNanoseconds)
        }
    }

    /// Waits up to 30 s until `finished()` reaches `listeners`.
    static func waitForListeners(_ listeners: Int, finished: () -> Int) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while finished() < listeners, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Prints the latency percentiles of one run.
    static func report(_ name: String, listeners: String, rate: Int, expected: Int, latencies: [Double]) {
        let result = Percentiles(latencies)
        print(
            "hearth \(name): \(listeners), \(rate) writes/s, \(result.count) of \(expected) deliveries: p50 \(format(result.median)) ms, p99 \(format(result.at(0.99))) ms, max \(format(result.at(1))) ms"
        )
    }
}
