import Logging
import NIOCore
import Synchronization

/// One long-polling realtime session (protocol §3.9): the messages its polls carry in, served
/// by a ``RealtimeSession`` one after another, and its ``LongPollOutbox``.
///
/// A WebSocket opened with `s=<id>` may take the session over: once the client sends `n` on
/// its polls, the server sends `n` as the last long-poll message and everything after it on
/// the WebSocket, which from then on carries the session.
///
/// The session ends when the client says it leaves (`disconn`, sent by the disconnect frame's
/// page as it unloads) or, once upgraded, when the WebSocket closes; when the client has had no
/// poll open for ``timeout``; when it reconnects with `ls=<id>`; or when it falls too far
/// behind. Then its listens end and its onDisconnect writes run, as for a WebSocket session.
final class LongPollSession: Sendable {
    /// The session id, sent in the handshake and as `id` of every poll.
    let id: String
    /// The secret every poll must carry as `pw`.
    let password: String
    let outbox: LongPollOutbox
    /// How long the client may go without a poll open before the session counts as abandoned.
    /// Clients poll again at once after each answer and at least every 25 s.
    let timeout: Duration
    /// How many bytes of received messages may wait to be served before the session ends.
    static let inboundLimit = 64 * 1024 * 1024

    private let inbound: AsyncStream<RealtimeConnection.Inbound>
    private let inboundContinuation: AsyncStream<RealtimeConnection.Inbound>.Continuation
    private let state = Mutex(State())

    private struct State {
        var segments = SegmentAssembler()
        /// When a poll last arrived or was answered: the last moment the client was reached.
        var lastPoll = ContinuousClock.now
        var queuedBytes = 0
        /// The WebSocket that came to upgrade the session.
        var secondary: (outbox: Outbox, channel: any Channel)?
        /// Whether the session moved to ``secondary``.
        var isUpgraded = false
    }

    init(id: String, password: String, callback: String, outboxLimit: Int, timeout: Duration) {
        self.id = id
        self.password = password
        self.timeout = timeout
        (inbound, inboundContinuation) = AsyncStream.makeStream(of: RealtimeConnection.Inbound.self)
        let continuation = inboundContinuation
        self.outbox = LongPollOutbox(callback: callback, limit: outboxLimit) { continuation.finish() }
    }

    /// Notes a poll and takes the segments it carries; throws, changing nothing, when one is
    /// invalid.
    func received(_ segments: [(number: Int, count: Int, chunk: Substring)]) throws(SegmentAssembler.InvalidSegment) {
        let messages = try state.withLock { state throws(SegmentAssembler.InvalidSegment) in
            state.lastPoll = .now
            // All of a poll's segments are taken, or none.
            var assembler = state.segments
            var messages: [ByteBuffer] = []
            for segment in segments {
                messages += try assembler.add(number: segment.number, count: segment.count, chunk: segment.chunk)
            }
            state.segments = assembler
            return messages
        }
        for message in messages { deliver(.message(message)) }
    }

    /// Notes that a poll was answered: the client polls again at once, so the time it may take
    /// to do so starts now.
    func pollAnswered() {
        state.withLock { $0.lastPoll = .now }
    }

    /// Queues a message from the client, from a poll or from the upgrading WebSocket.
    func deliver(_ message: RealtimeConnection.Inbound) {
        let overflowed = state.withLock { state in
            state.queuedBytes += message.size
            return state.queuedBytes > Self.inboundLimit
        }
        if overflowed { end() } else { inboundContinuation.yield(message) }
    }

    /// Takes `outbox` as the session's WebSocket-to-be; `false` when it already has one.
    func attach(secondary outbox: Outbox, channel: any Channel) -> Bool {
        state.withLock { state in
            guard state.secondary == nil else { return false }
            state.secondary = (outbox, channel)
            return true
        }
    }

    /// The client left its long-polling transport (`disconn`), or its polls stopped: the
    /// session ends unless it moved to a WebSocket.
    func longPollingEnded() {
        if !state.withLock({ $0.isUpgraded }) { end() }
    }

    /// The upgrading WebSocket closed: the session ends if it had moved there; otherwise it
    /// goes on polling and may be upgraded again.
    func secondaryEnded() {
        let isUpgraded = state.withLock { state in
            if !state.isUpgraded { state.secondary = nil }
            return state.isUpgraded
        }
        if isUpgraded { end() }
    }

    /// Ends the session: no more messages are served, and ``serve(with:)`` returns.
    func end() {
        inboundContinuation.finish()
    }

    /// Serves the client's messages until the session ends, then closes its transports. Returns
    /// the realtime session, whose disconnect (listens ended, onDisconnect writes) the caller
    /// runs once this session can no longer be reached.
    func serve(with session: RealtimeSession) async -> RealtimeSession {
        var session = session
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.watchForAbandonment() }
            for await message in inbound {
                switch message {
                case .message(let bytes) where Self.isEndTransmission(bytes):
                    switchToSecondary()
                case .message(let bytes):
                    await session.handle(bytes)
                case .oversized(let prefix):
                    session.handleOversized(prefix: prefix)
                case .credentialLapsed(let failure, let generation):
                    await session.credentialLapsed(failure, generation: generation)
                }
                state.withLock { $0.queuedBytes -= message.size }
            }
            group.cancelAll()
        }
        outbox.close()
        state.withLock { $0.secondary }?.channel.close(promise: nil)
        return session
    }

    /// The client's `n` on its polls: it sends on the WebSocket from now on. The server's `n`
    /// ends the long-poll stream; what follows goes to the WebSocket.
    private func switchToSecondary() {
        // Upgraded before the client can hear of it: the client leaves the long-polling
        // transport as soon as it reads `n`, and that must not end the session.
        let secondary: Outbox? = state.withLock { state in
            guard let secondary = state.secondary else { return nil }
            state.isUpgraded = true
            return secondary.outbox
        }
        guard let secondary else { return }
        outbox.send(RealtimeMessages.endTransmission)
        outbox.forward(to: secondary)
    }

    private static func isEndTransmission(_ message: ByteBuffer) -> Bool {
        (try? RealtimeInbound.parse(Array(message.readableBytesView))) == .control(type: "n")
    }

    /// Ends the session once the client has had no poll open for ``timeout``.
    private func watchForAbandonment() async {
        while !Task.isCancelled {
            let (lastPoll, isUpgraded) = state.withLock { ($0.lastPoll, $0.isUpgraded) }
            if isUpgraded { return }
            let deadline = lastPoll + timeout
            if !outbox.isPolled && ContinuousClock.now >= deadline {
                longPollingEnded()
                return
            }
            // A held poll is answered within its hold time, which restarts the count.
            try? await Task.sleep(until: outbox.isPolled ? .now + timeout : deadline)
        }
    }
}
