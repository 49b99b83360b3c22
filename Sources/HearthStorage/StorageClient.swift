import AsyncHTTPClient
import Foundation
@_spi(HearthSDK) import HearthApp
import NIOCore
import NIOHTTP1

/// Requests of one reference to the Firebase v0 API, with the signed-in user's token
/// (`Authorization: Firebase <ID token>`) when the app has an auth, and Storage errors for
/// failed answers.
struct StorageClient: Sendable {
    let reference: StorageReference

    init(_ reference: StorageReference) {
        self.reference = reference
    }

    /// The headers every request carries.
    func headers() async -> HTTPHeaders {
        var headers = HTTPHeaders([("X-Firebase-Storage-Version", "ios/hearth")])
        if let provider = reference.storage.app.authTokenProvider, let token = try? await provider.idToken(forcingRefresh: false) {
            headers.add(name: "Authorization", value: "Firebase \(token)")
        }
        return headers
    }

    /// Sends a request and answers the status, headers and body; a failed status is thrown.
    func send(
        _ method: HTTPMethod, _ url: String, headers extra: [(String, String)] = [], body: ByteBuffer? = nil
    ) async throws -> (status: UInt, headers: HTTPHeaders, body: ByteBuffer) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers = await headers()
        for (name, value) in extra { request.headers.replaceOrAdd(name: name, value: value) }
        if let body { request.body = .bytes(body) }
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
            bytes = try await response.body.collect(upTo: 1 << 26)
        } catch {
            throw StorageClientFailure.network(error)
        }
        guard (200..<300).contains(response.status.code) else {
            throw StorageError(status: response.status.code, body: String(buffer: bytes), reference: reference)
        }
        return (response.status.code, response.headers, bytes)
    }

    /// ``send(_:_:headers:body:)`` for single requests: a lost connection is tried again until
    /// ``Storage/maxOperationRetryTime`` passes, then it is a Storage error.
    func checked(
        _ method: HTTPMethod, _ url: String, headers extra: [(String, String)] = [], body: ByteBuffer? = nil
    ) async throws -> (status: UInt, headers: HTTPHeaders, body: ByteBuffer) {
        let deadline = Date().addingTimeInterval(reference.storage.maxOperationRetryTime)
        while true {
            do {
                return try await send(method, url, headers: extra, body: body)
            } catch let failure as StorageClientFailure {
                guard Date() < deadline else { throw failure.storageError }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Sends a request with an optional JSON body and answers the JSON object it gets back.
    func json(_ method: HTTPMethod, _ url: String, body: [String: Any]? = nil) async throws -> [String: Any] {
        let data = try body.map { ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: $0)) }
        let answer = try await checked(
            method, url, headers: body == nil ? [] : [("Content-Type", "application/json; charset=utf-8")], body: data)
        return try Self.object(answer.body)
    }

    /// The JSON object of an answer's body.
    static func object(_ body: ByteBuffer) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] else {
            throw StorageError(.unknown, "Invalid data returned from the server.", serverResponse: String(buffer: body))
        }
        return object
    }

    /// `text` as one percent-encoded URL path component (`/` becomes `%2F`).
    static func component(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~!$'()*,=:@")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// A query string of `items`, each value encoded as a component.
    static func query(_ items: [URLQueryItem]) -> String {
        items.map { "\(component($0.name))=\(component($0.value ?? ""))" }.joined(separator: "&")
    }
}

/// A request that got no answer (the connection failed): uploads and downloads retry these.
enum StorageClientFailure: Error {
    case network(any Error)

    var storageError: StorageError {
        switch self {
        case .network(let error): StorageError.network(error)
        }
    }
}
