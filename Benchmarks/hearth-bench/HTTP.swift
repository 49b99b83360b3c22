import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// A keep-alive HTTP client sized for `connections` concurrent requests.
func makeClient(connections: Int) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
    configuration.timeout = .init(connect: .seconds(10), read: .seconds(300))
    configuration.httpVersion = .http1Only
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}

/// Sends one request and returns the status and the whole body.
@discardableResult
func send(
    _ client: HTTPClient, _ method: HTTPMethod, _ url: String, body: String? = nil, headers: [(String, String)] = []
) async throws -> (status: UInt, body: ByteBuffer) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body { request.body = .bytes(ByteBuffer(string: body)) }
    let response = try await client.execute(request, timeout: .seconds(300))
    let bytes = try await response.body.collect(upTo: 1 << 30)
    return (response.status.code, bytes)
}

/// The host and port of `http://HOST:PORT`.
func hostAndPort(_ url: String) throws -> (String, Int) {
    let authority = url.split(separator: "//").last!
    let parts = authority.split(separator: ":")
    guard parts.count == 2, let port = Int(parts[1]) else { throw BenchError(description: "expected http://HOST:PORT") }
    return (String(parts[0]), port)
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
}
