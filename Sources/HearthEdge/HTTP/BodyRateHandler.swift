import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request body arrives too slowly: a client sending a byte every few
/// seconds would otherwise hold its connection and request handler for ever. Counted from the
/// request head, a body has ``ConnectionLimits/bodyGracePeriod`` plus one second for every
/// ``ConnectionLimits/minimumBodyRate`` bytes it has delivered, as Apache's `mod_reqtimeout`
/// counts; a request that ends in time is not looked at again.
final class BodyRateHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let minimumRate: Int
    private let gracePeriod: TimeAmount
    /// When the head of the request being received arrived; `nil` between requests.
    private var started: NIODeadline?
    private var received = 0
    private var check: Scheduled<Void>?

    /// `minimumRate` must be positive.
    init(minimumRate: Int, gracePeriod: Duration) {
        precondition(minimumRate > 0)
        self.minimumRate = minimumRate
        self.gracePeriod = TimeAmount(gracePeriod)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            stopChecking()
            started = .now()
            received = 0
            scheduleCheck(context: context)
        case .body(let bytes):
            received += bytes.readableBytes
        case .end:
            stopChecking()
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopChecking()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopChecking()
    }

    private var deadline: NIODeadline? {
        started.map { $0 + gracePeriod + .nanoseconds(Int64(received) * 1_000_000_000 / Int64(minimumRate)) }
    }

    private func scheduleCheck(context: ChannelHandlerContext) {
        guard let deadline else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            handler.checkRate(context: context)
        }
    }

    private func checkRate(context: ChannelHandlerContext) {
        guard let deadline else { return }
        if deadline <= .now() {
            started = nil
            context.close(promise: nil)
        } else {
            scheduleCheck(context: context)
        }
    }

    private func stopChecking() {
        started = nil
        check?.cancel()
        check = nil
    }
}
