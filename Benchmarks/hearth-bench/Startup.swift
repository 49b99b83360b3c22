import ArgumentParser
import Foundation
import HearthCore
import HearthDatabaseServer
import HearthServer
import Logging

/// Startup time and resident memory of `hearth serve` over a database of `leaves` leaves: when
/// the port opens, and when the first read of the namespace is answered (after its load).
struct Startup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "startup")

    @Option(help: "The hearth executable to start.")
    var binary: String
    @Option var leaves = 1_000_000
    @Option var port = 9317

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-startup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await fill(directory)
        let clock = ContinuousClock()
        let start = clock.now
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", String(port), "--data-dir", directory, "--project", "bench"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !String(decoding: line, as: UTF8.self).contains("Hearth listening") {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { throw BenchError(description: "hearth exited before listening") }
            line.append(byte)
        }
        let startup = clock.now - start
        let client = makeClient(connections: 1)
        let (status, _) = try await send(client, .GET, "http://127.0.0.1:\(port)/users/u1000000.json?ns=bench-default-rtdb")
        let firstRead = clock.now - start
        try await client.shutdown()
        guard status == 200 else { throw BenchError(description: "the first read answered \(status)") }
        let rss = try ProcessStats(pid: process.processIdentifier).residentBytes / 1024
        process.terminate()
        process.waitUntilExit()
        print(
            "hearth startup: \(leaves) leaves: listening after \(format(milliseconds(startup) / 1000)) s, first read answered after \(format(milliseconds(firstRead) / 1000)) s, resident memory \(format(Double(rss) / 1024, digits: 0)) MiB (\(format(Double(rss) * 1024 / Double(leaves), digits: 0)) bytes per leaf)"
        )
    }

    /// Writes `leaves` leaves (`/users/uNNNNNN/{name,age,city,score}`) through the engine.
    private func fill(_ directory: String) async throws {
        let service = DatabaseService(dataDirectory: directory, logger: Logger(label: "bench"))
        let engine = try await service.namespace("bench-default-rtdb", for: .admin, writes: true)
        let users = leaves / 4
        for chunk in stride(from: 0, to: users, by: 25_000) {
            let entries = try (chunk..<min(chunk + 25_000, users)).map { index in
                (
                    try DatabasePath("users/u\(index + 1_000_000)"),
                    WriteValue.json(
                        try JSONParser.parse(
                            "{\"name\":\"user \(index)\",\"age\":\(index % 90),\"city\":\"c\(index % 500)\",\"score\":\(Double(index) / 7)}"
                        ))
                )
            }
            try await engine.update(.root, entries, as: .admin)
        }
        await service.close()
    }
}
