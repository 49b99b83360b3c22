import Foundation
import HearthCore
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import HearthServer

/// A Hearth server on a free port with its own temporary data directory, for one test.
struct TestServer {
    let directory: String
    let configuration: HearthConfiguration

    init(
        directory: String = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-test-\(UUID().uuidString)").path,
        configure: (inout HearthConfiguration) -> Void = { _ in }
    ) {
        self.directory = directory
        var configuration = HearthConfiguration(
            port: 0, dataDirectory: directory, projectID: "test-project", streamKeepAliveInterval: .milliseconds(200))
        configure(&configuration)
        self.configuration = configuration
    }

    /// Runs `body` against a live server, then shuts it down, keeping the data directory.
    func run<Value>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        let server = try HearthServer(configuration: configuration, logger: Logger(label: "hearth-test"))
        await server.database.preload([configuration.defaultNamespace])
        let auth = try await server.openAuth()
        let storage = try await server.openStorage()
        let ads = try await server.openAds()
        do {
            let (products, realtime) = server.makeProducts(auth: auth, storage: storage, ads: ads)
            let value = try await server.makeApplication(products: products, realtime: realtime, onListening: { _ in })
                .test(.live, body)
            await server.database.close()
            await auth.close()
            await storage.close()
            await ads.close()
            return value
        } catch {
            await server.database.close()
            await auth.close()
            await storage.close()
            await ads.close()
            throw error
        }
    }

    func removeData() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
}

extension TestClientProtocol {
    @discardableResult
    func request(
        _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil, headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }
}

/// Firebase's pretty-printed error body for `message`.
func errorBody(_ message: String) -> String {
    "{\n  \"error\" : \"\(message.replacingOccurrences(of: "\"", with: "\\\""))\"\n}\n"
}
