import NIOCore

/// The handlers that enforce a server's ``ConnectionLimits`` on its connections: one count of
/// connections per address shared by every port, and a body-rate check per connection.
package struct ConnectionGuards: Sendable {
    let limits: ConnectionLimits
    private let perAddress: ConnectionsPerAddress?

    package init(limits: ConnectionLimits) {
        self.limits = limits
        self.perAddress = limits.maximumPerAddress.map(ConnectionsPerAddress.init(limit:))
    }

    /// Whether `channel` may stay open: `false` when its address holds the most connections
    /// allowed already. An admitted channel counts until it closes.
    func admits(_ channel: any Channel) -> Bool {
        perAddress?.admit(channel) ?? true
    }

    /// The handlers that go after a connection's HTTP/1 decoding.
    func requestHandlers() -> [any RemovableChannelHandler] {
        limits.minimumBodyRate > 0
            ? [BodyRateHandler(minimumRate: limits.minimumBodyRate, gracePeriod: limits.bodyGracePeriod)] : []
    }

    /// Every guard as handlers for Hummingbird's own HTTP/1 channel, after its HTTP decoding:
    /// the admission check first.
    package func http1Handlers() -> [any RemovableChannelHandler] {
        [ConnectionAdmissionHandler(guards: self)] + requestHandlers()
    }
}
