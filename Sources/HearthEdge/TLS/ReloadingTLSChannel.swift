import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// Serves `base` (the main port's ``HearthChannel``) over TLS, each new connection with the
/// certificate ``TLSCertificates`` holds then: reloading the files changes what new connections
/// get. A client that does not speak TLS (plain HTTP on the TLS port) fails the handshake and its
/// connection is closed.
package struct ReloadingTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    package typealias Value = Base.Value

    let base: Base
    let certificates: TLSCertificates

    package init(_ base: Base, certificates: TLSCertificates) {
        self.base = base
        self.certificates = certificates
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: certificates.context))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    package func handle(value: Base.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension ReloadingTLSChannel: HTTPChannelHandler where Base: HTTPChannelHandler {
    package var responder: HTTPChannelHandler.Responder { base.responder }
}
