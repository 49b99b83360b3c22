import HearthCore
import NIOCore

/// Encodes view changes as Server-Sent Events, the REST streaming protocol (§12):
/// `event: put` / `event: patch` with `data: {"path": …, "data": …}`.
struct SSEFormat: EventFormat {
    /// How data inside events is rendered (`format=export` or plain).
    let rendering: JSONRendering

    func encode(_ change: ViewChange, location: DatabasePath, query: QueryParams) -> ByteBuffer {
        var writer = JSONWriter()
        let name: String
        var scope = writer.beginObject()
        switch change {
        case .put(let path, let node):
            name = "put"
            writer.writeKey("path", in: &scope)
            writer.writeString(path.description)
            writer.writeKey("data", in: &scope)
            writer.write(node, rendering)
        case .patch(let path, let children):
            name = "patch"
            writer.writeKey("path", in: &scope)
            writer.writeString(path.description)
            writer.writeKey("data", in: &scope)
            var members = writer.beginObject()
            for child in children {
                writer.writeKey(child.path.slashless, in: &members)
                writer.write(child.node, rendering)
            }
            writer.endObject(members)
        }
        writer.endObject(scope)
        return Self.event(name, data: writer.bytes)
    }

    /// `event: <name>\ndata: <data>\n\n`.
    static func event(_ name: String, data: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeString("event: \(name)\ndata: ")
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
        return buffer
    }

    /// The event that ends a stream whose location may no longer be read.
    static let cancel = event("cancel", data: Array("null".utf8))

    /// The event that ends a stream whose credential expired or was revoked; the text is what
    /// the Admin SDKs match to reconnect with a fresh credential.
    static let authRevoked = event("auth_revoked", data: Array("credential is no longer valid".utf8))

    /// The event sent while a stream is idle.
    static let keepAlive = event("keep-alive", data: Array("null".utf8))
}
