import Foundation
import NIOCore

/// The Realtime Database as admin, over REST: rules do not apply.
public struct AdminDatabase: Sendable {
    let client: AdminClient

    private func url(_ path: String, _ query: String = "") -> String {
        let namespace = client.options.databaseNamespace ?? "\(client.projectID)-default-rtdb"
        let trimmed = path.split(separator: "/").map { AdminClient.formEncoded(String($0)) }.joined(separator: "/")
        return "\(client.server)/\(trimmed).json?ns=\(AdminClient.formEncoded(namespace))\(query)"
    }

    /// The value at `path` as JSON (`NSNull` when there is none).
    public func get(_ path: String) async throws -> Any {
        let (status, body) = try await client.send(.GET, url(path))
        return try Self.value(status, body)
    }

    /// Replaces the value at `path`.
    public func set(_ path: String, _ value: Any) async throws {
        let (status, body) = try await client.send(.PUT, url(path, "&print=silent"), body: try Self.json(value))
        guard status == 204 || status == 200 else { throw Self.failure(status, body) }
    }

    /// Writes each child of `values` (paths relative to `path`), leaving the others.
    public func update(_ path: String, _ values: [String: Any]) async throws {
        let (status, body) = try await client.send(.PATCH, url(path, "&print=silent"), body: try Self.json(values))
        guard status == 204 || status == 200 else { throw Self.failure(status, body) }
    }

    /// Removes the value at `path`.
    public func remove(_ path: String) async throws {
        let (status, body) = try await client.send(.DELETE, url(path))
        guard status == 200 || status == 204 else { throw Self.failure(status, body) }
    }

    /// Replaces the value at `path` with what `update` makes of the current one, retrying with
    /// the newer value whenever another writer got there first (REST ETag transactions); answers
    /// the value written.
    public func transaction(_ path: String, maxAttempts: Int = 25, _ update: (Any) throws -> Any) async throws -> Any {
        var (status, headers, body) = try await client.exchange(.GET, url(path), headers: [("X-Firebase-ETag", "true")])
        for _ in 0..<maxAttempts {
            let current = try Self.value(status == 412 ? 200 : status, body)
            guard let etag = headers.first(name: "ETag") else { throw AdminError("internal-error", "no ETag in the answer") }
            let next = try update(current)
            (status, headers, body) = try await client.exchange(
                .PUT, url(path), headers: [("if-match", etag), ("X-Firebase-ETag", "true")], body: try Self.json(next))
            if status == 200 { return next }
            guard status == 412 else { throw Self.failure(status, body) }
        }
        throw AdminError("max-retries", "the transaction at \(path) lost to other writers \(maxAttempts) times")
    }

    private static func json(_ value: Any) throws -> ByteBuffer {
        try AdminError.requireJSON(value, "The value")
        return ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]))
    }

    private static func value(_ status: UInt, _ body: ByteBuffer) throws -> Any {
        guard status == 200 else { throw failure(status, body) }
        return try JSONSerialization.jsonObject(with: Data(body.readableBytesView), options: [.fragmentsAllowed])
    }

    private static func failure(_ status: UInt, _ body: ByteBuffer) -> AdminError {
        let json = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
        return AdminError("database-error", json?["error"] as? String ?? String(buffer: body), status: status)
    }
}
