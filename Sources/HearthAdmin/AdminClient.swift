import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Requests with the admin credential: the development credential `owner`, or an access token
/// traded for an assertion signed with the service-account key, renewed before it expires.
final class AdminClient: @unchecked Sendable {
    let options: AdminOptions
    let key: ServiceAccountKey?
    private let lock = NSLock()
    private var accessToken: (token: String, expires: Date)?

    init(options: AdminOptions) throws {
        self.options = options
        key = try options.serviceAccountKeyFile.map(ServiceAccountKey.init(file:))
    }

    var projectID: String { options.projectID }

    /// Whether the server is on this machine (a development server).
    var isLoopback: Bool {
        guard let host = URLComponents(string: server)?.host else { return false }
        return ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
    }
    var server: String { options.serverURL }

    /// The `Authorization` header's value.
    func authorization() async throws -> String {
        guard let key else { return "Bearer owner" }
        if let cached = lock.withLock({ accessToken }), cached.expires.timeIntervalSinceNow > 300 { return "Bearer \(cached.token)" }
        let now = Int(Date().timeIntervalSince1970)
        let assertion = try key.sign([
            "iss": key.clientEmail, "sub": key.clientEmail, "aud": key.tokenURI, "iat": now, "exp": now + 3600,
            "scope": "https://www.googleapis.com/auth/firebase https://www.googleapis.com/auth/cloud-platform",
        ])
        let form = "grant_type=\(AdminClient.formEncoded("urn:ietf:params:oauth:grant-type:jwt-bearer"))&assertion=\(assertion)"
        let (status, body) = try await send(
            .POST, key.tokenURI, contentType: "application/x-www-form-urlencoded", body: ByteBuffer(string: form), authorize: false)
        guard status == 200, let json = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
            let token = json["access_token"] as? String
        else {
            throw AdminError(
                "invalid-credential", "the token endpoint refused the service-account key: \(String(buffer: body))", status: status)
        }
        let lifetime = (json["expires_in"] as? NSNumber)?.doubleValue ?? 3600
        lock.withLock { accessToken = (token, Date().addingTimeInterval(lifetime)) }
        return "Bearer \(token)"
    }

    /// Sends a request and answers its status and body.
    func send(
        _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], contentType: String? = nil, body: ByteBuffer? = nil,
        authorize: Bool = true
    ) async throws -> (UInt, ByteBuffer) {
        let (status, _, bytes) = try await exchange(
            method, url, headers: headers, contentType: contentType, body: body, authorize: authorize)
        return (status, bytes)
    }

    /// Sends a request and answers its status, headers and body.
    func exchange(
        _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], contentType: String? = nil, body: ByteBuffer? = nil,
        authorize: Bool = true
    ) async throws -> (UInt, HTTPHeaders, ByteBuffer) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if authorize { request.headers.add(name: "Authorization", value: try await authorization()) }
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(body) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        return (response.status.code, response.headers, try await response.body.collect(upTo: 1 << 30))
    }

    /// POSTs JSON to an Auth REST method of the project (`/accounts:lookup`,
    /// `:createSessionCookie`, …) and answers the JSON, or throws the server's error code.
    func auth(_ path: String, _ body: [String: Any], method: HTTPMethod = .POST) async throws -> [String: Any] {
        let url = "\(server)/identitytoolkit.googleapis.com/v1/projects/\(projectID)\(path)"
        let data = method == .GET ? nil : ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body))
        let (status, bytes) = try await send(method, url, contentType: data == nil ? nil : "application/json", body: data)
        let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
        guard status == 200 else {
            let message = (json["error"] as? [String: Any])?["message"] as? String ?? String(buffer: bytes)
            let code = message.split(separator: ":").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? message
            throw AdminError(code, message, status: status)
        }
        return json
    }

    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
