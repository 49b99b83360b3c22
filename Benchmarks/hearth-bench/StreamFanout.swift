import ArgumentParser

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
        try await Fanout.paceWrites(rate: rate, count: count) { index, sent in
            try await send(client, .PUT, location, body: "{\"sent\":\(sent),\"n\":\(index)}")
        }
        try await Fanout.waitForListeners(self.listeners) { listeners.finishedCount }
        try await client.shutdown()
        Fanout.report(
            "sse-fanout", listeners: "\(self.listeners) listeners", rate: rate, expected: self.listeners * count,
            latencies: listeners.recorded)
    }
}
