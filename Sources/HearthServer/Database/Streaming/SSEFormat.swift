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
        switch change {
        case .put(let path, let node):
            name = "put"
            writer.writeObject { object in
                object.writeMember("path") { $0.writeString(path.description) }
                object.writeMember("data") { $0.write(node, rendering) }
            }
        case .patch(let path, let children):
            name = "patch"
            writer.writeObject { object in
                object.writeMember("path") { $0.writeString(path.description) }
                object.writeMember("data") { data in
                    data.writeObject { members in
                        for child in children {
                            members.writeMember(child.path.slashless) { $0.write(child.node, rendering) }
                        }
                    }
                }
            }
        }
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

    /// The event sent while a stream is idle.
    static let keepAlive = event("keep-alive", data: Array("null".utf8))
}
