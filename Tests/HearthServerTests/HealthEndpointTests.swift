import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Testing

@testable import HearthServer

/// `/readyz` names the products whose stores fail, and nothing more; `/healthz` answers while
/// the process runs, whatever the stores.
@Suite struct HealthEndpointTests {
    private func get(_ path: String, from endpoint: HealthEndpoint) async -> (HTTPResponse.Status, String) {
        let request = Request(
            head: HTTPRequest(method: .get, scheme: nil, authority: nil, path: path), body: RequestBody(buffer: ByteBuffer()))
        let response = await endpoint.respond(to: request)
        let writer = CollectingWriter()
        try? await response.body.write(writer)
        return (response.status, String(buffer: writer.collected.buffer))
    }

    @Test func readinessNamesTheFailingProductsOnly() async {
        let endpoint = HealthEndpoint(
            checks: [
                .init(product: "database") { "the durable log failed: /secret/path: No space left on device" },
                .init(product: "auth") { nil },
                .init(product: "storage") { "closed" },
            ], logger: Logger(label: "hearth-test"))
        let (status, body) = await get("/readyz", from: endpoint)
        #expect(status == .serviceUnavailable)
        #expect(body == #"{"status":"unavailable","failing":["database","storage"]}"#)
        let (liveStatus, liveBody) = await get("/healthz", from: endpoint)
        #expect(liveStatus == .ok && liveBody == #"{"status":"ok"}"#)
    }
}

/// Collects a response body's bytes.
private struct CollectingWriter: ResponseBodyWriter {
    final class Collected: @unchecked Sendable {
        var buffer = ByteBuffer()
    }

    let collected = Collected()

    mutating func write(_ chunk: ByteBuffer) async throws {
        collected.buffer.writeImmutableBuffer(chunk)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
