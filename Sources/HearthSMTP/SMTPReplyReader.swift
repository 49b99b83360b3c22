import NIOCore

/// The last handler of an SMTP connection's pipeline: keeps the replies that arrive and hands them
/// out one at a time, each within a deadline. The first failure of the channel (an error, the
/// end of the connection, a missed deadline) is kept, fails every later read, and closes the
/// channel. Used on the channel's event loop only.
final class SMTPReplyReader: ChannelInboundHandler {
    typealias InboundIn = SMTPReply

    private var received = CircularBuffer<SMTPReply>()
    private var waiting: (promise: EventLoopPromise<SMTPReply>, deadline: Scheduled<Void>)?
    private var failure: (any Error)?
    private var context: ChannelHandlerContext?

    /// Whether replies arrived that nobody asked for yet.
    var hasUnreadReplies: Bool { !received.isEmpty }

    /// The next reply; fails with ``SMTPChannelFailure/timedOut`` if none arrives within `timeout`.
    func nextReply(within timeout: TimeAmount, on eventLoop: any EventLoop) -> EventLoopFuture<SMTPReply> {
        precondition(waiting == nil, "one reply is awaited at a time")
        if let reply = received.popFirst() { return eventLoop.makeSucceededFuture(reply) }
        if let failure { return eventLoop.makeFailedFuture(failure) }
        let promise = eventLoop.makePromise(of: SMTPReply.self)
        let deadline = eventLoop.assumeIsolated().scheduleTask(in: timeout) { self.fail(SMTPChannelFailure.timedOut) }
        waiting = (promise, deadline)
        return promise.futureResult
    }

    /// Ends the connection because of `error`, unless it already failed.
    func fail(_ error: any Error) {
        guard failure == nil else { return }
        failure = error
        if let waiting {
            self.waiting = nil
            waiting.deadline.cancel()
            waiting.promise.fail(error)
        }
        context?.close(promise: nil)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        fail(SMTPChannelFailure.closed)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let reply = unwrapInboundIn(data)
        if let waiting {
            self.waiting = nil
            waiting.deadline.cancel()
            waiting.promise.succeed(reply)
        } else {
            received.append(reply)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(SMTPChannelFailure.closed)
        context.fireChannelInactive()
    }
}
