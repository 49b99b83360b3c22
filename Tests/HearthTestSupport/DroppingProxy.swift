import Foundation
import NIOCore
import NIOPosix

/// A TCP proxy in front of a server that cuts every connection through it after a random
/// lifetime, for tests of clients that must survive a flaky network.
public final class DroppingProxy: @unchecked Sendable {
    /// The port clients connect to.
    public let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let lock = NSLock()
    private var dropping = true
    private var cuts = 0

    /// Starts a proxy to `127.0.0.1:upstreamPort` that cuts each connection after a lifetime
    /// drawn from `lifetimes` (milliseconds).
    public init(upstreamPort: Int, lifetimes: ClosedRange<Int>) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        let state = Box()
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop).connect(host: "127.0.0.1", port: upstreamPort).flatMap { outbound in
                    let (toUpstream, toClient) = RelayHandler.pair(inbound, outbound)
                    return inbound.pipeline.addHandler(toUpstream).flatMap { outbound.pipeline.addHandler(toClient) }
                        .map {
                            let lifetime = Int64(Int.random(in: lifetimes))
                            inbound.eventLoop.scheduleTask(in: .milliseconds(lifetime)) {
                                guard state.proxy?.shouldDrop() ?? false else { return }
                                inbound.close(promise: nil)
                                outbound.close(promise: nil)
                            }
                        }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress!.port!
        state.proxy = self
    }

    /// How many connections the proxy cut.
    public var cutCount: Int { lock.withLock { cuts } }

    /// Stops cutting connections (the network "heals").
    public func stopDropping() {
        lock.withLock { dropping = false }
    }

    fileprivate func shouldDrop() -> Bool {
        lock.withLock {
            if dropping { cuts += 1 }
            return dropping
        }
    }

    /// Closes the listening socket and the proxy's threads.
    public func close() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    private final class Box: @unchecked Sendable {
        weak var proxy: DroppingProxy?
    }
}

/// Copies bytes from one channel to its peer, and closes the peer when either side closes.
private final class RelayHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    private let peer: any Channel

    private init(peer: any Channel) {
        self.peer = peer
    }

    static func pair(_ first: any Channel, _ second: any Channel) -> (RelayHandler, RelayHandler) {
        (RelayHandler(peer: second), RelayHandler(peer: first))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
