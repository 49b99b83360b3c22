import NIOCore
import NIOSSL

extension ChannelPipeline.SynchronousOperations {
    /// Adds `handler` where bytes leave for the network: right after TLS on a TLS connection, so
    /// that what it writes is encrypted, else first. For handlers that write raw frames past the
    /// HTTP handlers (a WebSocket's writer).
    package func addHandlerAtTransport(_ handler: any ChannelHandler) throws {
        if let tls = try? self.handler(type: NIOSSLServerHandler.self) {
            try addHandler(handler, position: .after(tls))
        } else {
            try addHandler(handler, position: .first)
        }
    }
}
