import ArgumentParser
import NIOCore

/// Durable REST write throughput and latency: `clients` keep-alive connections, each writing in a
/// loop, as `redis-benchmark -t set -c 50` does. Prints the rate, the latency percentiles and the
/// longest time no write was answered (a commit stall).
struct RESTWrites: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rest-writes")

    /// What each request does.
    enum Kind: String, ExpressibleByArgument {
        /// Each client PUTs its own key again and again.
        case overwrite
        /// Each request PUTs a key nobody wrote before, random rather than in time order (the
        /// peer benchmark's `put_random.lua`).
        case newKeys = "new-keys"
        /// Each request pushes (`POST`) a child with a new push ID.
        case push
        /// GETs of the overwritten locations, to compare with reads.
        case reads
    }

    @Option var url = "http://127.0.0.1:9000"
    @Option var clients = 50
    @Option(help: "Seconds to measure, after one second of warm-up.")
    var seconds = 10.0
    @Option var namespace = "bench"
    @Option(help: "overwrite, new-keys, push or reads.")
    var kind = Kind.overwrite

    func run() async throws {
        let (host, port) = try hostAndPort(url)
        let namespace = self.namespace
        let kind = self.kind
        let outcome = try await KeepAliveLoad.measure(
            host: host, port: port, connections: clients, warmUp: .seconds(1),
            duration: .milliseconds(Int64(seconds * 1000)), expectedStatus: kind == .reads || kind == .push ? 200 : 204
        ) { connection, sequence in
            let body = "{\"client\":\(connection),\"sequence\":\(sequence),\"payload\":\"xxx\"}"
            let target: String
            switch kind {
            case .reads:
                return ByteBuffer(string: "GET /bench/writes/c\(connection).json?ns=\(namespace) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            case .overwrite: target = "PUT /bench/writes/c\(connection).json?ns=\(namespace)&print=silent"
            case .newKeys:
                let key = String(UInt32.random(in: 0...UInt32.max), radix: 16) + "-\(connection)-\(sequence)"
                target = "PUT /bench/items/\(key).json?ns=\(namespace)&print=silent"
            case .push: target = "POST /bench/pushed.json?ns=\(namespace)"
            }
            var request = ByteBuffer()
            request.writeString("\(target) HTTP/1.1\r\nHost: \(host)\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            request.writeString(body)
            return request
        }
        let latencies = outcome.latencies
        print(
            "hearth rest-writes \(kind.rawValue): \(clients) clients, \(outcome.completed) requests in \(seconds) s: "
                + "\(format(Double(outcome.completed) / seconds, digits: 0))/s; latency ms p50 \(format(latencies.median)) "
                + "p90 \(format(latencies.at(0.9))) p99 \(format(latencies.at(0.99))) max \(format(latencies.at(1))); "
                + "longest stall \(format(outcome.longestStallMilliseconds)) ms")
    }
}
