import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1

/// Where `auth:import` and `auth:export` reach a running Hearth's Authentication, and as whom.
struct AuthServerOptions: ParsableArguments {
    @Option(help: "The Hearth server.")
    var server = "http://127.0.0.1:9000"

    @Option(help: "The Firebase project id the server serves.")
    var project = "demo-hearth"

    @Option(help: "The credential sent as 'Authorization: Bearer …' (the development admin credential by default).")
    var token = "owner"

    /// Calls the admin method `accounts:<method>` of the project and returns the JSON answer: a
    /// POST of `body`, or a GET with `query` when there is no body.
    func call(_ method: String, query: [(String, String)] = [], body: JSONValue? = nil) async throws(AuthServerError) -> JSONValue {
        let parameters = query.map { "\($0)=\(URLEscaping.escaped($1))" }.joined(separator: "&")
        let url = "\(server)/identitytoolkit.googleapis.com/v1/projects/\(URLEscaping.escaped(project))/accounts:\(method)"
        var request = HTTPClientRequest(url: parameters.isEmpty ? url : "\(url)?\(parameters)")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            var writer = JSONWriter()
            writer.write(body)
            request.body = .bytes(ByteBuffer(bytes: writer.bytes))
        }
        let status: UInt
        let answer: ByteBuffer
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .minutes(10))
            status = response.status.code
            answer = try await response.body.collect(upTo: 1 << 30)
        } catch {
            throw .unreachable(server: server, reason: "\(error)")
        }
        let json = try? JSONParser.parse(Array(answer.readableBytesView))
        guard (200..<300).contains(status) else {
            throw .refused(status: status, message: json?["error"]?["message"]?.stringValue ?? String(buffer: answer))
        }
        guard let json else { throw .notJSON(answer: String(buffer: answer)) }
        return json
    }
}

/// A call to the server that did not succeed.
enum AuthServerError: Error, CustomStringConvertible {
    case unreachable(server: String, reason: String)
    /// The server's answer to a refused request; `message` is Firebase's `error.message`.
    case refused(status: UInt, message: String)
    /// A successful answer that is not JSON: not a Hearth (or Firebase) server.
    case notJSON(answer: String)

    var description: String {
        switch self {
        case .unreachable(let server, let reason): "cannot reach \(server): \(reason)"
        case .refused(let status, let message): "the server refused the request (\(status)): \(message)"
        case .notJSON(let answer): "the server's answer is not JSON: \(answer.prefix(200))"
        }
    }
}
