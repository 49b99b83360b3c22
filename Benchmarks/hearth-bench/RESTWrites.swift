import ArgumentParser
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
        let host = String(url.split(separator: "//").last!.split(separator: ":").first!)
        let port = Int(url.split(separator: ":").last!)!
        let namespace = self.namespace
        let completed = try await KeepAliveLoad.run(
            host: host, port: port, connections: clients, warmUp: .seconds(1),
            duration: .milliseconds(Int64(seconds * 1000)), expectedStatus: 204
        ) { connection, sequence in
            let body = "{\"client\":\(connection),\"sequence\":\(sequence),\"payload\":\"xxx\"}"
            var request = ByteBuffer()
            request.writeString(
                "PUT /bench/writes/c\(connection).json?ns=\(namespace)&print=silent HTTP/1.1\r\nHost: \(host)\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            request.writeString(body)
            return request
        }
        print("hearth rest-writes: \(clients) clients, \(completed) durable PUTs in \(seconds) s: \(format(Double(completed) / seconds, digits: 0)) writes/s")
    }
}
