import ArgumentParser
import AsyncHTTPClient
import Dispatch
import NIOCore
import Synchronization

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
        let client = makeClient(connections: listeners + 4)
        let location = "\(url)/bench/fanout.json?ns=\(namespace)"
        try await send(client, .PUT, location, body: "{\"sent\":0,\"n\":0}")
        let state = FanoutState()
        let count = self.count
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<listeners {
                group.addTask {
                    var request = HTTPClientRequest(url: location)
                    request.headers.add(name: "Accept", value: "text/event-stream")
                    let response = try await client.execute(request, timeout: .seconds(600))
                    guard response.status == .ok else { throw BenchError(description: "stream answered \(response.status)") }
                    var parser = EventParser()
                    var received = 0
                    for try await chunk in response.body {
                        let now = DispatchTime.now().uptimeNanoseconds
                        for (name, data) in parser.feed(chunk) where name == "put" {
                            guard let sent = Self.sentTime(in: data) else { continue }
                            if sent == 0 {
                                state.ready.withLock { $0 += 1 }
                                continue
                            }
                            state.latencies.withLock { $0.append(Double(now - sent) / 1_000_000) }
                            received += 1
                        }
                        if received >= count { return }
                    }
                }
            }
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(60)
            while state.ready.withLock({ $0 }) < listeners {
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
            try await group.waitForAll()
        }
        try await client.shutdown()
        let result = Percentiles(state.latencies.withLock { $0 })
        print(
            "hearth sse-fanout: \(listeners) listeners, \(rate) writes/s, \(result.count) deliveries: p50 \(format(result.median)) ms, p99 \(format(result.at(0.99))) ms, max \(format(result.at(1)))"
        )
    }

    private static func sentTime(in data: String) -> UInt64? {
        guard let range = data.range(of: "\"sent\":") else { return nil }
        return UInt64(data[range.upperBound...].prefix { $0.isNumber })
    }
}

/// What the listener tasks share.
private final class FanoutState: Sendable {
    let latencies = Mutex<[Double]>([])
    let ready = Mutex(0)
}

/// Splits an SSE byte stream (chunked transfer already decoded) into `(event, data)` pairs.
struct EventParser {
    private var pending = ""

    mutating func feed(_ chunk: ByteBuffer) -> [(String, String)] {
        pending += String(buffer: chunk)
        var events: [(String, String)] = []
        while let end = pending.range(of: "\n\n") {
            let block = pending[..<end.lowerBound]
            pending = String(pending[end.upperBound...])
            var name = ""
            var data = ""
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            events.append((name, data))
        }
        return events
    }
}
