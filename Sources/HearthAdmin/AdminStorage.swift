import Foundation
import NIOCore

/// Cloud Storage as admin, over the GCS JSON API: rules do not apply.
public struct AdminStorage: Sendable {
    let client: AdminClient

    /// The default bucket's name.
    public var defaultBucket: String { client.options.storageBucket ?? "\(client.projectID).appspot.com" }

    private func objectPath(_ bucket: String?, _ name: String) -> String {
        "b/\(AdminClient.formEncoded(bucket ?? defaultBucket))/o/\(AdminClient.formEncoded(name))"
    }

    /// Stores `data` as `name`; answers the object's resource (`size`, `md5Hash`, …).
    @discardableResult
    public func upload(_ data: Data, as name: String, contentType: String = "application/octet-stream", bucket: String? = nil)
        async throws -> [String: Any]
    {
        let url =
            "\(client.server)/upload/storage/v1/b/\(AdminClient.formEncoded(bucket ?? defaultBucket))/o?uploadType=media&name=\(AdminClient.formEncoded(name))"
        let (status, body) = try await client.send(.POST, url, contentType: contentType, body: ByteBuffer(bytes: data))
        return try Self.object(status, body)
    }

    /// The object's bytes.
    public func download(_ name: String, bucket: String? = nil) async throws -> Data {
        let (status, body) = try await client.send(.GET, "\(client.server)/storage/v1/\(objectPath(bucket, name))?alt=media")
        guard status == 200 else { throw Self.failure(status, body) }
        return Data(body.readableBytesView)
    }

    /// The object's resource.
    public func metadata(_ name: String, bucket: String? = nil) async throws -> [String: Any] {
        let (status, body) = try await client.send(.GET, "\(client.server)/storage/v1/\(objectPath(bucket, name))")
        return try Self.object(status, body)
    }

    public func delete(_ name: String, bucket: String? = nil) async throws {
        let (status, body) = try await client.send(.DELETE, "\(client.server)/storage/v1/\(objectPath(bucket, name))")
        guard status == 204 || status == 200 else { throw Self.failure(status, body) }
    }

    private static func object(_ status: UInt, _ body: ByteBuffer) throws -> [String: Any] {
        guard status == 200, let json = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else {
            throw failure(status, body)
        }
        return json
    }

    private static func failure(_ status: UInt, _ body: ByteBuffer) -> AdminError {
        let json = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
        let message = (json?["error"] as? [String: Any])?["message"] as? String ?? String(buffer: body)
        return AdminError(status == 404 ? "object-not-found" : "storage-error", message, status: status)
    }
}
