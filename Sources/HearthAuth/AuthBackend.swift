import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The Auth REST API a client signs in with: `identitytoolkit.googleapis.com/v1/accounts:*` and
/// `securetoken.googleapis.com/v1/token`, at Google's hosts or at an emulator (Hearth) given as
/// `host:port`. Errors come back as ``AuthError``s.
struct AuthBackend: Sendable {
    let apiKey: String
    /// `host:port` of an emulator, or `nil` for Google's hosts.
    let emulator: String?
    /// The language emails and messages should be in, sent as `X-Firebase-Locale`.
    let languageCode: String?

    /// `accounts:<method>` with a JSON body; the JSON answer.
    func accounts(_ method: String, _ body: [String: Any]) async throws(AuthError) -> [String: Any] {
        try await post(url(service: "identitytoolkit.googleapis.com", path: "v1/accounts:\(method)"), json: body)
    }

    /// A refreshed ID token for `refreshToken` (snake_case answer, spec auth-api §2.12).
    func refresh(_ refreshToken: String) async throws(AuthError) -> [String: Any] {
        try await post(
            url(service: "securetoken.googleapis.com", path: "v1/token"),
            json: ["grant_type": "refresh_token", "refresh_token": refreshToken])
    }

    private func url(service: String, path: String) -> String {
        let key = apiKey.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? apiKey
        if let emulator { return "http://\(emulator)/\(service)/\(path)?key=\(key)" }
        return "https://\(service)/\(path)?key=\(key)"
    }

    private func post(_ url: String, json: [String: Any]) async throws(AuthError) -> [String: Any] {
        let status: HTTPResponseStatus
        let answer: Any?
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            if let languageCode { request.headers.add(name: "X-Firebase-Locale", value: languageCode) }
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            status = response.status
            let body = try await response.body.collect(upTo: 1 << 24)
            answer = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))
        } catch {
            throw AuthError(.networkError, failureReason: "\(error)")
        }
        guard let object = answer as? [String: Any] else {
            throw AuthError(.internalError, failureReason: "unexpected answer (HTTP \(status.code))")
        }
        guard status == .ok else {
            let message = (object["error"] as? [String: Any])?["message"] as? String
            throw AuthError(serverMessage: message ?? "HTTP \(status.code)")
        }
        return object
    }
}
