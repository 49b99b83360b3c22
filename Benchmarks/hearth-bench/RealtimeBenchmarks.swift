import ArgumentParser
import NIOCore

/// Durable realtime `p` throughput: `clients` WebSocket connections, each writing its own key in
/// a loop and waiting for each `ok`, as `redis-benchmark -t set -c 50` does.
struct RealtimeWrites: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ws-writes")

    @Option var url = "http://127.0.0.1:9000"
    @Option var clients = 50
    @Option(help: "Seconds to measure, after one second of warm-up.")
    var seconds = 10.0
    @Option var namespace = "bench"

    func run() async throws {
        let (host, port) = try hostAndPort(url)
        let clock = ContinuousClock()
        let measureFrom = clock.now + .seconds(2)
        let stopAt = measureFrom + .milliseconds(Int64(seconds * 1000))
        let tally = RealtimeConnections.Tally()
        let channels = try await RealtimeConnections.open(
            count: clients, host: host, port: port, namespace: namespace,
            role: .writer(path: "/bench/ws-writes", measureFrom: measureFrom, stopAt: stopAt), tally: tally)
        for channel in channels { try await channel.closeFuture.get() }
        if let failure = tally.failure.withLock({ $0 }) { throw BenchError(description: failure) }
        let completed = tally.completed.withLock { $0 }
        print(
            "hearth ws-writes: \(clients) clients, \(completed) durable puts in \(seconds) s: \(format(Double(completed) / seconds, digits: 0)) writes/s"
        )
    }
}

/// Realtime fan-out latency and rate: `connections` WebSocket connections listen to one location;
/// one writer connection puts at `rate` writes/s a value carrying its send time. With `--also-on`,
/// the listeners are spread evenly over `--url` and the other nodes of a cluster (relays), the
/// writer staying on `--url`.
struct RealtimeFanout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ws-fanout")

    @Option var url = "http://127.0.0.1:9000"
    @Option var connections = 1000
    @Option var rate = 100
    @Option var count = 1000
    @Option var namespace = "bench"
    @Option(help: "Other nodes of the cluster (http://host:port, comma-separated) that share the listeners.")
    var alsoOn = ""

    func run() async throws {
        let (host, port) = try hostAndPort(url)
        let nodes = try [(host, port)] + alsoOn.split(separator: ",").map { try hostAndPort(String($0)) }
        let path = "/bench/ws-fanout"
        let client = makeClient(connections: 1)
        try await send(client, .PUT, "\(url)\(path).json?ns=\(namespace)", body: #"{"sent":0,"n":0}"#)
        try await client.shutdown()
        let tally = RealtimeConnections.Tally()
        var listeners: [any Channel] = []
        for (index, node) in nodes.enumerated() {
            let share = connections / nodes.count + (index < connections % nodes.count ? 1 : 0)
            listeners += try await RealtimeConnections.open(
                count: share, host: node.0, port: node.1, namespace: namespace, role: .listener(path: path, deliveries: count),
                tally: tally, firstConnection: listeners.count)
        }
        try await waitUntil(tally, isReady: connections, what: "listeners")
        let writerTally = RealtimeConnections.Tally()
        let writer = try await RealtimeConnections.open(
            count: 1, host: host, port: port, namespace: namespace, role: .idle, tally: writerTally)[0]
        try await waitUntil(writerTally, isReady: 1, what: "the writer")
        let clock = ContinuousClock()
        let started = clock.now
        try await Fanout.paceWrites(rate: rate, count: count) { index, sent in
            let put = #"{"t":"d","d":{"r":\#(index),"a":"p","b":{"p":"\#(path)","d":{"sent":\#(sent),"n":\#(index)}}}}"#
            try await writer.writeAndFlush(RealtimeConnections.frame(put))
        }
        try await Fanout.waitForListeners(connections) { tally.finished.withLock { $0 } }
        let elapsed = clock.now - started
        try await writer.close()
        for channel in listeners { channel.close(promise: nil) }
        let latencies = tally.latencies.withLock { $0 }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        Fanout.report(
            "ws-fanout",
            listeners: "\(connections) connections on \(nodes.count) node\(nodes.count == 1 ? "" : "s")", rate: rate,
            expected: connections * count, latencies: latencies)
        print("hearth ws-fanout: \(format(Double(latencies.count) / seconds)) deliveries/s over \(format(seconds)) s")
    }
}

/// Idle realtime connections: opens `connections` and reports the server's resident memory per
/// connection and its CPU use while they stay idle.
struct RealtimeIdle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ws-idle")

    @Option var url = "http://127.0.0.1:9000"
    @Option var connections = 10000
    @Option(help: "The process id of the Hearth server, to read its memory and CPU time.")
    var pid: Int32
    @Option var idleSeconds = 10.0
    @Option var namespace = "bench"

    func run() async throws {
        let (host, port) = try hostAndPort(url)
        let before = try ProcessStats(pid: pid)
        let tally = RealtimeConnections.Tally()
        let channels = try await RealtimeConnections.open(
            count: connections, host: host, port: port, namespace: namespace, role: .idle, tally: tally)
        try await waitUntil(tally, isReady: connections, what: "idle connections")
        try await Task.sleep(for: .seconds(1))
        let connected = try ProcessStats(pid: pid)
        try await Task.sleep(for: .milliseconds(Int64(idleSeconds * 1000)))
        let idle = try ProcessStats(pid: pid)
        for channel in channels { channel.close(promise: nil) }
        let perConnection = Double(connected.residentBytes - before.residentBytes) / Double(connections)
        let cpu = (idle.cpuSeconds - connected.cpuSeconds) / idleSeconds * 100
        print(
            "hearth ws-idle: \(connections) connections: RSS \(format(Double(before.residentBytes) / 1_048_576)) → \(format(Double(connected.residentBytes) / 1_048_576)) MiB, \(format(perConnection / 1024)) KiB per connection; CPU while idle \(format(cpu))% of one core"
        )
    }
}

/// Waits until `target` connections of `tally` are ready.
func waitUntil(_ tally: RealtimeConnections.Tally, isReady target: Int, what: String) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(120)
    while tally.ready.withLock({ $0 }) < target {
        guard clock.now < deadline else {
            throw BenchError(description: "only \(tally.ready.withLock { $0 }) of \(target) \(what) became ready")
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}
