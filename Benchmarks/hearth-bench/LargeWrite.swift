import ArgumentParser
import AsyncHTTPClient
import NIOCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One PUT of an object shaped like a Firebase JSON export (`children` children of two leaves
/// each; 1,000,000 of them is about 72 MB) while readers GET another path of the same namespace
/// in a loop: end-to-end MB/s, the longest a reader waited, and the server's resident memory.
struct LargeWrite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "large-write")

    @Option var url = "http://127.0.0.1:9000"
    @Option var children = 1_000_000
    @Option var readers = 4
    @Option(help: "The server's process id, to sample its resident memory.")
    var pid: Int32?

    func run() async throws {
        let namespace = "bench-import-\(UInt32.random(in: 0...UInt32.max))"
        let body = Self.exportBody(children: children)
        let megabytes = Double(body.readableBytes) / 1_000_000
        let client = makeClient(connections: readers + 1)
        try await send(client, .PUT, "\(url)/other.json?ns=\(namespace)", body: "{\"small\":true}")
        let memoryBefore = try pid.map { try ProcessStats(pid: $0).residentBytes } ?? 0
        let progress = Progress(memory: memoryBefore)
        let clock = ContinuousClock()
        let url = url
        let elapsed = try await withThrowingTaskGroup(of: Duration?.self) { group in
            for _ in 0..<readers {
                group.addTask {
                    while progress.writing.load(ordering: .relaxed) {
                        let start = clock.now
                        let (status, _) = try await send(client, .GET, "\(url)/other.json?ns=\(namespace)")
                        guard status == 200 else { throw BenchError(description: "reader answered \(status)") }
                        let waited = milliseconds(clock.now - start)
                        progress.longestStall.withLock { $0 = max($0, waited) }
                    }
                    return nil
                }
            }
            if let pid {
                group.addTask {
                    while progress.writing.load(ordering: .relaxed) {
                        let resident = try ProcessStats(pid: pid).residentBytes
                        progress.peakMemory.withLock { $0 = max($0, resident) }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    return nil
                }
            }
            group.addTask {
                // Let the readers start before the write.
                try await Task.sleep(for: .milliseconds(200))
                let start = clock.now
                var request = HTTPClientRequest(url: "\(url)/import.json?ns=\(namespace)&print=silent")
                request.method = .PUT
                request.body = .bytes(body)
                let response = try await client.execute(request, timeout: .seconds(600))
                _ = try await response.body.collect(upTo: 1 << 20)
                let elapsed = clock.now - start
                progress.writing.store(false, ordering: .relaxed)
                guard response.status.code == 204 else { throw BenchError(description: "PUT answered \(response.status.code)") }
                return elapsed
            }
            var elapsed: Duration?
            for try await result in group { elapsed = elapsed ?? result }
            return elapsed!
        }
        let (status, check) = try await send(client, .GET, "\(url)/import/\(Self.key(children - 1))/score.json?ns=\(namespace)")
        guard status == 200, String(buffer: check) == String(Self.score(children - 1)) else {
            throw BenchError(description: "the written data does not read back")
        }
        try await send(client, .DELETE, "\(url)/import.json?ns=\(namespace)&print=silent")
        try await client.shutdown()
        let seconds = milliseconds(elapsed) / 1000
        var line =
            "hearth large-write: PUT of \(format(megabytes, digits: 0)) MB (\(children) children): \(format(seconds)) s, \(format(megabytes / seconds, digits: 1)) MB/s; longest reader wait \(format(progress.longestStall.withLock { $0 }, digits: 0)) ms"
        if pid != nil {
            let before = Double(memoryBefore) / 1_048_576
            let peak = Double(progress.peakMemory.withLock { $0 }) / 1_048_576
            line += "; server memory \(format(before, digits: 0)) MiB before, \(format(peak, digits: 0)) MiB at peak"
        }
        print(line)
    }

    /// What the tasks of one run share.
    private final class Progress: Sendable {
        let writing = Atomic(true)
        let longestStall = Mutex(0.0)
        let peakMemory: Mutex<Int>

        init(memory: Int) { peakMemory = Mutex(memory) }
    }

    static func key(_ index: Int) -> String {
        "-Nk" + String(repeating: "0", count: max(0, 12 - String(index).count)) + String(index)
    }

    static func score(_ index: Int) -> Int { index * 7 % 100_000 }

    /// `{"-Nk000000000000":{"name":"user number 0, imported","score":0},…}`
    static func exportBody(children: Int) -> ByteBuffer {
        var body = ByteBuffer()
        body.reserveCapacity(children * 75)
        body.writeString("{")
        for index in 0..<children {
            if index > 0 { body.writeString(",") }
            body.writeString("\"\(key(index))\":{\"name\":\"user number \(index), imported\",\"score\":\(score(index))}")
        }
        body.writeString("}")
        return body
    }
}
