import ArgumentParser
import Dispatch

/// SSE fan-out latency: `listeners` streams on one location, one writer at `rate` writes/s; each
/// write carries its send time and each delivery is timed against it.
struct StreamFanout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sse-fanout")

    @Option var url = "http://127.0.0.1:9000"
    @Option var listeners = 1000
    @Option var rate = 100
    @Option var count = 1000
    @Option var namespace = "bench"

    func run() async throws {
        let (host, port) = try hostAndPort(url)
        let client = makeClient(connections: 4)
        let location = "\(url)/bench/fanout.json?ns=\(namespace)"
        try await send(client, .PUT, location, body: "{\"sent\":0,\"n\":0}")
        let listeners = StreamListeners()
        _ = try await listeners.open(
            count: self.listeners, host: host, port: port, path: "/bench/fanout.json?ns=\(namespace)", deliveries: count)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while listeners.connectedCount < self.listeners {
            guard clock.now < deadline else { throw BenchError(description: "listeners did not connect") }
            try await Task.sleep(for: .milliseconds(50))
        }
        let interval = Duration.nanoseconds(1_000_000_000 / rate)
        var next = clock.now
        for index in 1...count {
            next += interval
            try await clock.sleep(until: next)
            let sent = DispatchTime.now().uptimeNanoseconds
            try await send(client, .PUT, location, body: "{\"sent\":\(sent),\"n\":\(index)}")
        }
        let drainDeadline = clock.now + .seconds(30)
        while listeners.finishedCount < self.listeners, clock.now < drainDeadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await client.shutdown()
        let result = Percentiles(listeners.recorded)
        print(
            "hearth sse-fanout: \(self.listeners) listeners, \(rate) writes/s, \(result.count) of \(self.listeners * count) deliveries: p50 \(format(result.median)) ms, p99 \(format(result.at(0.99))) ms, max \(format(result.at(1))) ms"
        )
    }
}
