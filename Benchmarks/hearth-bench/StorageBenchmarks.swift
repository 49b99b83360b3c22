import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import _NIOFileSystem

/// Storage throughput: a large object uploaded (v0 media upload, streamed from a file) and
/// downloaded (`alt=media`, streamed and discarded), beside `dd conv=fsync` writing and `cat`
/// reading the same size on the same disk; the server's peak resident memory; and small (10 KB)
/// uploads per second from concurrent signed-in clients.
struct StorageBenchmarks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "storage")

    @Option var url = "http://127.0.0.1:9000"
    @Option(help: "The server's process id, for its peak resident memory.")
    var pid: Int32?
    @Option(help: "A scratch directory on the disk under test (the server's data directory's disk).")
    var directory: String
    @Option(help: "Size of the large object in MiB.")
    var mebibytes = 1024
    @Option var clients = 50
    @Option var seconds = 10.0
    @Option var bucket = "bench.appspot.com"

    func run() async throws {
        let client = makeClient(connections: clients)
        let source = directory + "/storage-bench-source"
        let size = Int64(mebibytes) << 20
        try writeRandomFile(source, size: size)
        defer { try? FileManager.default.removeItem(atPath: source) }
        try await largeObject(client, source: source, size: size)
        if pid != nil { printPeakMemory(after: "the large upload and download") }
        try await smallUploads(client)
        try await client.shutdown()
    }

    /// A file of `size` pseudo-random bytes (incompressible, not all alike).
    private func writeRandomFile(_ path: String, size: Int64) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var generator = SystemRandomNumberGenerator()
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var written: Int64 = 0
        while written < size {
            for index in stride(from: 0, to: block.count, by: 8) {
                withUnsafeBytes(of: generator.next() as UInt64) { block.replaceSubrange(index..<index + 8, with: $0) }
            }
            let count = Int(min(Int64(block.count), size - written))
            handle.write(Data(block[..<count]))
            written += Int64(count)
        }
        try handle.close()
    }

    private func largeObject(_ client: HTTPClient, source: String, size: Int64) async throws {
        let copy = directory + "/storage-bench-dd"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let ddSeconds = try timeShell("dd if=\(source) of=\(copy) bs=1M conv=fsync status=none")
        let catSeconds = try timeShell("cat \(copy) > /dev/null")
        let name = "bench/large-\(UUID().uuidString)"
        let objectURL = "\(url)/v0/b/\(bucket)/o/\(name.replacingOccurrences(of: "/", with: "%2F"))"
        let uploadStart = ContinuousClock.now
        let status = try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(source)) { handle in
            var request = HTTPClientRequest(url: "\(url)/v0/b/\(bucket)/o?name=\(name.replacingOccurrences(of: "/", with: "%2F"))")
            request.method = .POST
            request.headers.add(name: "Authorization", value: Self.admin)
            request.headers.add(name: "Content-Type", value: "application/octet-stream")
            request.body = .stream(handle.readChunks(chunkLength: .kibibytes(256)), length: .known(size))
            let response = try await client.execute(request, timeout: .seconds(3600))
            _ = try await response.body.collect(upTo: 1 << 20)
            return response.status.code
        }
        let uploadSeconds = seconds(since: uploadStart)
        guard status == 200 else { throw BenchError(description: "upload answered \(status)") }
        let downloadStart = ContinuousClock.now
        var download = HTTPClientRequest(url: objectURL + "?alt=media")
        download.headers.add(name: "Authorization", value: Self.admin)
        let response = try await client.execute(download, timeout: .seconds(3600))
        var received: Int64 = 0
        for try await chunk in response.body { received += Int64(chunk.readableBytes) }
        let downloadSeconds = seconds(since: downloadStart)
        guard received == size else { throw BenchError(description: "downloaded \(received) of \(size) bytes") }
        _ = try await send(client, .DELETE, objectURL, headers: [("Authorization", Self.admin)])
        let mib = Double(size) / Double(1 << 20)
        func rate(_ seconds: Double) -> String { "\(format(mib / seconds, digits: 0)) MiB/s (\(format(seconds, digits: 2)) s)" }
        print("storage large object: \(mebibytes) MiB")
        print("  hearth upload (v0 media, durable before the answer): \(rate(uploadSeconds))")
        print("  reference dd bs=1M conv=fsync: \(rate(ddSeconds))  -> hearth \(format(ddSeconds / uploadSeconds * 100, digits: 0))%")
        print("  hearth download (alt=media): \(rate(downloadSeconds))")
        print("  reference cat > /dev/null: \(rate(catSeconds))  -> hearth \(format(catSeconds / downloadSeconds * 100, digits: 0))%")
    }

    /// The development admin credential: the large object is written and read outside any rules.
    static let admin = "Firebase owner"

    /// Rules for the small uploads: each user writes only their own folder, objects under 1 MiB
    /// of an `application/` type.
    static let ownerRules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /users/{uid}/{file} {
              allow write: if request.auth != null && request.auth.uid == uid
                           && request.resource.size < 1024 * 1024
                           && request.resource.contentType.matches('application/.*');
            }
          }
        }
        """

    /// `clients` connections each uploading 10 KB objects in a loop as a signed-in user, under
    /// ``ownerRules`` (set through `/internal/setRules`; checked to refuse another user's folder).
    private func smallUploads(_ client: HTTPClient) async throws {
        try await setRules(client, Self.ownerRules)
        let intruder = try await upload(client, name: "users%2Fuser1%2Fintruder", token: DeniedRequests.unsignedToken(uid: "user0"))
        guard intruder == 403 else { throw BenchError(description: "the rules did not refuse another user's folder: \(intruder)") }
        let payload = ByteBuffer(repeating: 0x61, count: 10 * 1024)
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<clients {
                group.addTask {
                    let uid = "user\(index)"
                    let token = DeniedRequests.unsignedToken(uid: uid)
                    var count = 0
                    while ContinuousClock.now < deadline {
                        let status = try await upload(client, name: "users%2F\(uid)%2Ff\(count % 100)", token: token, payload: payload)
                        guard status == 200 else { throw BenchError(description: "upload answered \(status)") }
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        print(
            "storage small uploads: \(clients) clients, 10 KB each, signed in, owner rules: \(counts) in \(seconds) s: "
                + "\(format(Double(counts) / seconds, digits: 0)) uploads/s")
    }

    /// A v0 media upload of `payload` as the user of `token`; answers the status.
    private func upload(_ client: HTTPClient, name: String, token: String, payload: ByteBuffer = ByteBuffer()) async throws -> UInt {
        var request = HTTPClientRequest(url: "\(url)/v0/b/\(bucket)/o?name=\(name)")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Firebase \(token)")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .bytes(payload)
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status.code
    }

    private func setRules(_ client: HTTPClient, _ rules: String) async throws {
        var request = HTTPClientRequest(url: "\(url)/internal/setRules")
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/json")
        let body: [String: Any] = ["rules": ["files": [["name": "storage.rules", "content": rules]]]]
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200 else { throw BenchError(description: "setRules answered \(response.status)") }
    }

    private func printPeakMemory(after what: String) {
        guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return }
        print("  hearth peak resident memory after \(what): \(line.split(separator: " ", omittingEmptySubsequences: true)[1]) kB")
    }

    private func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Runs `command` with `sh -c` and returns how long it took.
    private func timeShell(_ command: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError(description: "\(command) failed") }
        return seconds(since: start)
    }
}
