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
    @Flag(help: "Send GETs of the same locations instead, to compare with reads.")
    var reads = false

    func run() async throws {
        let (host, port) = try hostAndPort(url)
        let namespace = self.namespace
        let reads = self.reads
        let completed = try await KeepAliveLoad.run(
            host: host, port: port, connections: clients, warmUp: .seconds(1),
            duration: .milliseconds(Int64(seconds * 1000)), expectedStatus: reads ? 200 : 204
        ) { connection, sequence in
            if reads {
                return ByteBuffer(string: "GET /bench/writes/c\(connection).json?ns=\(namespace) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            }
            let body = "{\"client\":\(connection),\"sequence\":\(sequence),\"payload\":\"xxx\"}"
            var request = ByteBuffer()
            request.writeString(
                "PUT /bench/writes/c\(connection).json?ns=\(namespace)&print=silent HTTP/1.1\r\nHost: \(host)\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            )
            request.writeString(body)
            return request
        }
        let what = reads ? "GETs" : "durable PUTs"
        print(
            "hearth rest-writes: \(clients) clients, \(completed) \(what) in \(seconds) s: \(format(Double(completed) / seconds, digits: 0)) requests/s"
        )
    }
}
