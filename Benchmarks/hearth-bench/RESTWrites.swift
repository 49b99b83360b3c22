import ArgumentParser
import AsyncHTTPClient
import HearthCore
import NIOCore

/// Durable REST PUT throughput: `clients` keep-alive connections, each writing its own key in a
/// loop, as `redis-benchmark -t set -c 50` does.
struct RESTWrites: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rest-writes")

    @Option var url = "http://127.0.0.1:9000"
    @Option var clients = 50
    @Option(help: "Seconds to measure, after one second of warm-up.")
    var seconds = 10.0
    @Option var namespace = "bench"

    func run() async throws {
        let client = makeClient(connections: clients)
        let clock = ContinuousClock()
        let warmUpEnd = clock.now + .seconds(1)
        let end = warmUpEnd + .milliseconds(Int64(seconds * 1000))
        let url = self.url
        let namespace = self.namespace
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<clients {
                group.addTask {
                    var counted = 0
                    var sequence = 0
                    while clock.now < end {
                        sequence += 1
                        let value = "{\"client\":\(index),\"sequence\":\(sequence),\"payload\":\"xxx\"}"
                        let (status, _) = try await send(client, .PUT, "\(url)/bench/writes/c\(index).json?ns=\(namespace)&print=silent", body: value)
                        guard status == 204 else { throw BenchError(description: "PUT answered \(status)") }
                        if clock.now > warmUpEnd { counted += 1 }
                    }
                    return counted
                }
            }
            return try await group.reduce(0, +)
        }
        try await client.shutdown()
        print("hearth rest-writes: \(clients) clients, \(counts) durable PUTs in \(seconds) s: \(format(Double(counts) / seconds, digits: 0)) writes/s")
    }
}
