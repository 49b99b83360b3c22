import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearthCore
import HearthDatabaseServer
import HearthRules
import HearthServer
import Logging

/// Reads of a node with `children` children over HTTP, and the indexed query
/// `orderBy="score"&limitToLast=10` both over HTTP and as server time (the engine's own work,
/// measured in this process on the same data).
struct LargeNode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "large-node")

    @Option var url = "http://127.0.0.1:9000"
    @Option var children = 100_000
    @Option var namespace = "bench"

    func run() async throws {
        let client = makeClient(connections: 4)
        let rules = "{\"rules\":{\".read\":true,\".write\":true,\"bench\":{\"large\":{\".indexOn\":\"score\"}}}}"
        try await send(
            client, .PUT, "\(url)/.settings/rules.json?ns=\(namespace)", body: rules, headers: [("Authorization", "Bearer owner")])
        try await send(client, .DELETE, "\(url)/bench/large.json?ns=\(namespace)")
        for chunk in stride(from: 0, to: children, by: 10_000) {
            let body = (chunk..<min(chunk + 10_000, children)).map { "\"\(Self.key($0))\":\(Self.child($0))" }.joined(separator: ",")
            let (status, _) = try await send(client, .PATCH, "\(url)/bench/large.json?ns=\(namespace)&print=silent", body: "{\(body)}")
            guard status == 204 else { throw BenchError(description: "PATCH answered \(status)") }
        }
        let get = try await time(iterations: 20) {
            let (_, body) = try await send(client, .GET, "\(url)/bench/large.json?ns=\(namespace)")
            guard body.readableBytes > children * 10 else { throw BenchError(description: "short body") }
        }
        let queryURL = "\(url)/bench/large.json?ns=\(namespace)&orderBy=%22score%22&limitToLast=10"
        let query = try await time(iterations: 500) {
            let (status, _) = try await send(client, .GET, queryURL)
            guard status == 200 else { throw BenchError(description: "query answered \(status)") }
        }
        try await client.shutdown()
        print("hearth large-node: GET of \(children) children over HTTP: p50 \(format(get.median)) ms, p99 \(format(get.at(0.99))) ms")
        print("hearth large-node: orderBy score limitToLast 10 over HTTP: p50 \(format(query.median)) ms, p99 \(format(query.at(0.99))) ms")
        try await measureServerTime()
    }

    /// The query as the engine runs it, with writes to the indexed children in between.
    private func measureServerTime() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let service = DatabaseService(dataDirectory: directory, logger: Logger(label: "bench"))
        let engine = try await service.namespace("bench", for: .admin, writes: true)
        let document = try RulesDocument(source: "{\"rules\":{\"large\":{\".indexOn\":\"score\"}}}")
        try await engine.replaceRules(document)
        let entries = try (0..<children).map { (try DatabasePath(Self.key($0)), WriteValue.json(try JSONParser.parse(Self.child($0)))) }
        try await engine.update(DatabasePath("large"), entries, as: .admin)
        let location = try DatabasePath("large")
        let query = QueryParams(index: .child(try DatabasePath("score")), limit: 10, anchor: .last)
        _ = try await engine.query(location, query, as: .admin)
        let clock = ContinuousClock()
        var samples: [Double] = []
        for iteration in 0..<1_000 {
            if iteration % 10 == 0 {
                _ = try await engine.set(
                    DatabasePath("large/\(Self.key(iteration))/score"), .json(.number(.int(Int64(iteration * 7 % 1000)))), as: .admin)
            }
            let start = clock.now
            let window = try await engine.query(location, query, as: .admin)
            samples.append(milliseconds(clock.now - start))
            guard window.count == 10 else { throw BenchError(description: "window of \(window.count)") }
        }
        await service.close()
        let result = Percentiles(samples)
        print(
            "hearth large-node: orderBy score limitToLast 10, server time: p50 \(format(result.median, digits: 3)) ms, p99 \(format(result.at(0.99), digits: 3)) ms"
        )
    }

    private static func key(_ index: Int) -> String { "c" + String(index + 1_000_000) }

    private static func child(_ index: Int) -> String {
        "{\"score\":\(index * 7919 % 100_003),\"name\":\"player \(index)\"}"
    }

}

/// Runs `body` `iterations` times and returns the durations in milliseconds.
func time(iterations: Int, _ body: () async throws -> Void) async throws -> Percentiles {
    let clock = ContinuousClock()
    var samples: [Double] = []
    for _ in 0..<iterations {
        let start = clock.now
        try await body()
        samples.append(milliseconds(clock.now - start))
    }
    return Percentiles(samples)
}
