import NIOCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The outbox of a long-polling session: messages wait here until a poll takes them, as one
/// numbered packet in a script that calls the page's data callback (protocol §3.9):
/// `parent.pRTLPCB<cb>(<packet>,[<message>,…]);`. Packets are numbered from 0; the client
/// reorders them by number.
///
/// A poll with nothing to take is held until a message arrives or its hold time passes. One
/// poll is held at a time: the client keeps one open to receive and opens a second only to
/// send, expecting the server to answer the older one at once, so a newer poll releases the
/// held one (empty: had messages been waiting, no poll would be held). A poll whose serial is
/// below the held one's was overtaken on the way and is answered at once instead. When the
/// ``Backlog`` passes its limit, the client is not polling and the session is closed.
final class LongPollOutbox: RealtimeOutbox {
    /// The client's callback number (`cb` of the start request), digits only.
    let callback: String
    private let onOverflow: @Sendable () -> Void
    private let state: Mutex<State>

    /// A poll waiting for messages; `serial` is the `ser` the client numbered it with.
    private struct HeldPoll {
        let id: Int
        let serial: Int?
        let continuation: CheckedContinuation<String, Never>
    }

    private struct State {
        var messages: [ByteBuffer] = []
        var backlog: Backlog
        var nextPacket = 0
        var heldPoll: HeldPoll?
        var nextPollID = 0
        var isClosed = false
        /// Where messages go once the session moved to a WebSocket.
        var forwardTarget: (any RealtimeOutbox)?
    }

    /// `callback` must be digits only: it is written into scripts as it is.
    init(callback: String, limit: Int, onOverflow: @escaping @Sendable () -> Void) {
        precondition(!callback.isEmpty && callback.utf8.allSatisfy { (0x30...0x39).contains($0) })
        self.callback = callback
        self.state = Mutex(State(backlog: Backlog(limit: limit)))
        self.onOverflow = onOverflow
    }

    @discardableResult
    func send(_ message: ByteBuffer) -> Bool {
        enum Outcome {
            case queued
            case forwarded(to: any RealtimeOutbox)
            case refused, overflowed
        }
        var answered: (CheckedContinuation<String, Never>, String)?
        let outcome: Outcome = state.withLock { state in
            if let target = state.forwardTarget { return .forwarded(to: target) }
            if state.isClosed { return .refused }
            guard state.backlog.admit(message.readableBytes) else {
                state.isClosed = true
                state.messages = []
                return .overflowed
            }
            state.messages.append(message)
            if let held = state.heldPoll.take() {
                answered = (held.continuation, takePacket(&state))
            }
            return .queued
        }
        if let (poll, script) = answered { poll.resume(returning: script) }
        switch outcome {
        case .queued: return true
        case .forwarded(let target): return target.send(message)
        case .refused: return false
        case .overflowed:
            onOverflow()
            return false
        }
    }

    @discardableResult
    func send(wire: ByteBuffer) -> Bool {
        if let target = state.withLock({ $0.forwardTarget }) { return target.send(wire: wire) }
        return send(WebSocketWire.decode(wire))
    }

    /// Sends every later message to `target` (the session moved to a WebSocket). Messages
    /// already queued still go to the next poll, followed by the `close` command.
    func forward(to target: any RealtimeOutbox) {
        state.withLock { $0.forwardTarget = target }
        close()
    }

    /// Ends the long-poll stream: the held poll, and any later one once the queued messages are
    /// taken, get the `close` command with the number of the last packet sent, after which the
    /// client expects nothing more on it.
    func close() {
        let (poll, script) = state.withLock { state in
            state.isClosed = true
            return (state.heldPoll.take()?.continuation, closeCommand(state))
        }
        poll?.resume(returning: script)
    }

    /// The script that answers a poll numbered `serial`: the waiting messages as the next
    /// packet, or, when none arrives within `hold`, nothing.
    func poll(serial: Int?, hold: Duration) async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            enum Answer {
                case now(String)
                case held(id: Int, released: CheckedContinuation<String, Never>?)
            }
            let answer: Answer = state.withLock { state in
                if !state.messages.isEmpty { return .now(takePacket(&state)) }
                if state.isClosed { return .now(closeCommand(state)) }
                if let held = state.heldPoll, let serial, let heldSerial = held.serial, serial < heldSerial {
                    return .now("")
                }
                let id = state.nextPollID
                state.nextPollID += 1
                let released = state.heldPoll?.continuation
                state.heldPoll = HeldPoll(id: id, serial: serial, continuation: continuation)
                return .held(id: id, released: released)
            }
            switch answer {
            case .now(let script):
                continuation.resume(returning: script)
            case .held(let id, let released):
                released?.resume(returning: "")
                Task {
                    try? await Task.sleep(for: hold)
                    self.release(poll: id)
                }
            }
        }
    }

    /// Answers poll `id` empty if it is still held.
    private func release(poll id: Int) {
        let held = state.withLock { state in
            state.heldPoll?.id == id ? state.heldPoll.take() : nil
        }
        held?.continuation.resume(returning: "")
    }

    /// Whether a poll is being held: the client is there.
    var isPolled: Bool {
        state.withLock { $0.heldPoll != nil }
    }

    private func takePacket(_ state: inout State) -> String {
        var script = "parent.pRTLPCB\(callback)(\(state.nextPacket),["
        for (index, message) in state.messages.enumerated() {
            if index > 0 { script += "," }
            script += Self.scriptSafe(message)
        }
        script += "]);"
        state.nextPacket += 1
        state.messages = []
        state.backlog.clear()
        return script
    }

    private func closeCommand(_ state: State) -> String {
        state.nextPacket > 0
            ? "parent.pLPCommand\(callback)('close',\(state.nextPacket - 1));" : "parent.pLPCommand\(callback)('close');"
    }

    /// JSON text as a JavaScript expression: U+2028 and U+2029, legal in JSON strings but line
    /// terminators to older JavaScript engines, are escaped.
    static func scriptSafe(_ json: ByteBuffer) -> String {
        String(decoding: json.readableBytesView, as: UTF8.self)
            .replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }
}
