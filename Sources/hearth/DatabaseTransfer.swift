import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Where `database:import` and `database:export` reach a running Hearth, and as whom.
struct ServerOptions: ParsableArguments {
    @Option(help: "The Hearth server.")
    var url = "http://127.0.0.1:9000"

    @Option(help: "The database namespace (default: the server's default database).")
    var ns: String?

    @Option(help: "The location in the database.")
    var path = "/"

    @Option(help: "The credential sent as 'Authorization: Bearer …' (the admin credential by default).")
    var token = "owner"

    /// The REST URL of the location, with `query` parameters.
    func locationURL(_ query: String) throws -> String {
        let trimmed = path.split(separator: "/").joined(separator: "/")
        guard let encoded = trimmed.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) else {
            throw ValidationError("invalid path \(path)")
        }
        let namespace = ns.map { "&ns=\($0.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? $0)" } ?? ""
        return "\(url)/\(encoded).json?\(query)\(namespace)"
    }

    func makeRequest(_ url: String, method: HTTPMethod) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        return request
    }
}

/// `hearth database:import FILE`: writes a JSON export into a running Hearth, replacing the
/// location, as one atomic write.
struct DatabaseImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database:import",
        abstract: "Import a JSON export (such as one from the Firebase console) into a running Hearth.",
        discussion: "The file replaces the data at --path in one atomic write, of at most 256 MB as on Firebase.")

    @Argument(help: "The JSON file.")
    var file: String

    @OptionGroup var server: ServerOptions

    func run() async throws {
        guard FileManager.default.isReadableFile(atPath: file),
            let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int
        else {
            throw CommandFailure("cannot read \(file)")
        }
        let progress = ProgressBar("uploading", total: size)
        var request = server.makeRequest(try server.locationURL("print=silent"), method: .PUT)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .stream(FileChunks(path: file, progress: progress), length: .known(Int64(size)))
        let response = try await HTTPClient.shared.execute(request, timeout: .hours(1))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 204 || response.status.code == 200 else {
            progress.finish("failed")
            throw CommandFailure("the server answered \(response.status.code): \(String(buffer: body))")
        }
        progress.finish("imported into \(server.path)")
    }
}

/// `hearth database:export`: writes the data at a location of a running Hearth to a JSON file,
/// with priorities (Firebase's export format).
struct DatabaseExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database:export", abstract: "Export the data of a running Hearth to a JSON file, as the Firebase console does.")

    @OptionGroup var server: ServerOptions

    @Option(help: "The file to write (standard output by default).")
    var output: String?

    func run() async throws {
        let request = server.makeRequest(try server.locationURL("format=export"), method: .GET)
        let response = try await HTTPClient.shared.execute(request, timeout: .hours(1))
        guard response.status.code == 200 else {
            let body = try await response.body.collect(upTo: 1 << 20)
            throw CommandFailure("the server answered \(response.status.code): \(String(buffer: body))")
        }
        let destination: FileHandle
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil) else { throw CommandFailure("cannot write \(output)") }
            destination = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        } else {
            destination = FileHandle.standardOutput
        }
        let length = response.headers.first(name: "Content-Length").flatMap(Int.init)
        let progress = output.map { _ in ProgressBar("downloading", total: length ?? 0) }
        for try await chunk in response.body {
            destination.write(Data(chunk.readableBytesView))
            progress?.advance(by: chunk.readableBytes)
        }
        if let output {
            try destination.close()
            progress?.finish("exported \(server.path) to \(output)")
        }
    }
}

/// A file read in chunks of 1 MiB, each counted on a progress bar as it is handed out.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let path: String
    let progress: ProgressBar

    struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle?
        let progress: ProgressBar

        mutating func next() async throws -> ByteBuffer? {
            guard let handle, let data = try handle.read(upToCount: 1 << 20), !data.isEmpty else {
                try handle?.close()
                return nil
            }
            progress.advance(by: data.count)
            return ByteBuffer(bytes: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(handle: FileHandle(forReadingAtPath: path), progress: progress)
    }
}

/// A command that could not do its work: printed as `Error: <message>`, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) {
        description = message
    }
}
