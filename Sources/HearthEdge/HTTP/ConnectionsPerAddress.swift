import NIOCore
import Synchronization

/// Counts each IP address's open connections and refuses those past the cap. A connection
/// from no IP address (a Unix socket) is always admitted.
final class ConnectionsPerAddress: Sendable {
    let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts `channel` against its address until it closes; `false`, counting nothing, when
    /// the address holds ``limit`` connections already.
    func admit(_ channel: any Channel) -> Bool {
        guard let address = channel.remoteAddress?.ipAddress else { return true }
        let admitted = counts.withLock { counts in
            let count = counts[address, default: 0]
            guard count < limit else { return false }
            counts[address] = count + 1
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { _ in self.release(address) }
        }
        return admitted
    }

    private func release(_ address: String) {
        counts.withLock { counts in
            let count = counts[address, default: 1] - 1
            counts[address] = count > 0 ? count : nil
        }
    }
}

/// Closes a new connection at once when ``ConnectionGuards`` does not admit it, for channels
/// whose setup Hearth does not write itself.
final class ConnectionAdmissionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let guards: ConnectionGuards

    init(guards: ConnectionGuards) {
        self.guards = guards
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if !guards.admits(context.channel) { context.close(promise: nil) }
    }
}
