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

    /// The headers every request carries; a signed-in user whose token cannot be had fails the
    /// request as unauthenticated rather than sending it signed out.
    func headers() async throws -> HTTPHeaders {
        var headers = HTTPHeaders([("X-Firebase-Storage-Version", "ios/hearth")])
        guard let provider = reference.storage.app.authTokenProvider else { return headers }
        let token: String?
        do {
            token = try await provider.idToken(forcingRefresh: false)
        } catch {
            throw StorageError.unauthenticated(serverError: ["tokenError": "\(error)"])
        }
        if let token { headers.add(name: "Authorization", value: "Firebase \(token)") }
        return headers
    }

    /// Sends a request and answers the status, headers and body; a failed status is thrown.
    func send(
        _ method: HTTPMethod, _ url: String, headers extra: [(String, String)] = [], body: ByteBuffer? = nil
    ) async throws -> (status: UInt, headers: HTTPHeaders, body: ByteBuffer) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers = try await headers()
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
        let status = response.status.code
        if [408, 502, 503, 504].contains(status)
            || ((400..<500).contains(status) && response.headers.first(name: "X-Goog-Upload-Status") == "active")
        {
            throw StorageClientFailure.retryable(StorageError(status: status, body: String(buffer: bytes), reference: reference))
        }
        guard (200..<300).contains(status) else {
            throw StorageError(status: status, body: String(buffer: bytes), reference: reference)
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
                guard Date() < deadline, !Task.isCancelled else { throw failure.storageError }
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
            throw StorageError.invalidAnswer(String(buffer: body))
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

/// A request worth trying again: it got no answer (the connection failed), or an answer that
/// says to retry (408, 502–504, or a 4xx on an upload that is still active, spec storage-api §4.4).
enum StorageClientFailure: Error {
    case network(any Error)
    case retryable(StorageError)

    var storageError: StorageError {
        switch self {
        case .network(let error): StorageError.network(error)
        case .retryable(let error): error
        }
    }
}
