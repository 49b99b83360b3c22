import AsyncHTTPClient
import HearthCore
import HearthEdge
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// A relay's link to the node that owns a namespace: it keeps the relay's replica of the tree
/// current with the owner's durable batches (``RelayEndpoint``'s follow stream) and passes the
/// relay's clients' writes on to the owner, in the order they were made.
///
/// The link fails for good when the owner's stream ends or errs, when the owner says nothing
/// for ``silenceLimit`` (it sends a keep-alive each second), or when a write cannot be passed
/// on: the relay then drops its replica, and its clients reconnect (``DatabaseService``).
final class OwnerLink: Sendable {
    /// Where the owner serves (`host:port`).
    let owner: String
    let namespace: String
    private let secret: String
    private let logger: Logger
    private let queue: ForwardingQueue
    private let follower = Mutex<Task<Void, Never>?>(nil)
    /// Told once when the link fails.
    private let failed = Mutex<(@Sendable () -> Void)?>(nil)
    /// Who waits for the replica, until the owner's snapshot made it.
    private let starting = Mutex<CheckedContinuation<NamespaceEngine, any Error>?>(nil)
    /// When the owner last sent something (``now()``), or ``busy`` while the relay is reading
    /// what it sent: the owner's silence is what counts, not the relay's own work.
    private let lastHeard = Atomic<Int64>(0)
    private static let busy = Int64.max
    private let isFailed = Atomic<Bool>(false)

    /// How long the owner may say nothing before the link counts as broken.
    static let silenceLimit: Duration = .seconds(3)
    /// The header that carries the cluster's relay secret.
    static let secretHeader = "X-Hearth-Relay-Secret"
    /// The most bytes an answer to forwarded writes may take.
    static let answerLimit = 16 << 20

    init(namespace: String, owner: String, secret: String, logger: Logger) {
        self.namespace = namespace
        self.owner = owner
        self.secret = secret
        self.logger = logger
        self.queue = ForwardingQueue()
    }

    /// Follows the owner: fills the empty replica `makeReplica` makes with the owner's snapshot,
    /// and keeps it current until the link fails, which calls `onFailure` once (``hasFailed``
    /// says whether it did, for a caller that registers the replica after this returns). The
    /// owner's rules, which the replica enforces unless its node has a rules file, go to
    /// `useRules`, at the start and whenever they change.
    func start(
        makeReplica: @escaping @Sendable () -> NamespaceEngine,
        useRules: @escaping @Sendable (NamespaceEngine, String) async -> Void,
        onFailure: @escaping @Sendable () -> Void
    ) async throws -> NamespaceEngine {
        failed.withLock { $0 = onFailure }
        return try await withCheckedThrowingContinuation { (started: CheckedContinuation<NamespaceEngine, any Error>) in
            let task = Task { await follow(makeReplica: makeReplica, useRules: useRules, started: started) }
            follower.withLock { $0 = task }
        }
    }

    /// Whether the link failed (``start(makeReplica:useRules:onFailure:)``).
    var hasFailed: Bool { isFailed.load(ordering: .acquiring) }

    /// Ends the link: the replica closed, or never opened.
    func stop() {
        failed.withLock { $0 = nil }
        follower.withLock { $0?.cancel() }
        queue.close()
    }

    private func fail(_ reason: String) {
        guard
            let onFailure = failed.withLock({ handler in
                defer { handler = nil }
                return handler
            })
        else { return }
        isFailed.store(true, ordering: .releasing)
        logger.warning(
            "relay lost its link to the namespace's owner",
            metadata: ["namespace": "\(logSafe: namespace)", "owner": "\(owner)", "reason": "\(logSafe: reason)"])
        // First, so that the writes failed below find the replica dropped.
        onFailure()
        follower.withLock { $0?.cancel() }
        queue.close()
    }

    private func request(_ path: String) -> HTTPClientRequest {
        // Namespace names are letters, digits, `-` and `_`: nothing to escape.
        var request = HTTPClientRequest(url: "http://\(owner)\(path)?ns=\(namespace)")
        request.headers.add(name: Self.secretHeader, value: secret)
        return request
    }

    // MARK: Following

    private func follow(
        makeReplica: @escaping @Sendable () -> NamespaceEngine,
        useRules: @escaping @Sendable (NamespaceEngine, String) async -> Void,
        started: CheckedContinuation<NamespaceEngine, any Error>
    ) async {
        starting.withLock { $0 = started }
        // The owner answers at once, and says something each second after, while it makes its
        // snapshot too: an owner paused or cut off is found out whenever it goes silent.
        lastHeard.store(Self.now(), ordering: .relaxed)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [self] in
                    let answer = try await ClusterHTTPClient.shared.execute(
                        request(RelayEndpoint.followPath), deadline: .distantFuture)
                    guard answer.status == .ok else {
                        throw RelayWire.Malformed(description: "the owner answered \(answer.status.code)")
                    }
                    try await replicate(answer.body, makeReplica: makeReplica, useRules: useRules) { [self] engine in
                        starting.withLock { $0.take() }?.resume(returning: engine)
                    }
                }
                group.addTask { [self] in
                    while true {
                        try await Task.sleep(for: .seconds(1))
                        let heard = lastHeard.load(ordering: .relaxed)
                        if heard != Self.busy, Self.now() - heard > Self.silenceLimit.nanoseconds {
                            throw RelayWire.Malformed(description: "the owner said nothing for \(Self.silenceLimit)")
                        }
                    }
                }
                _ = try await group.next()
                group.cancelAll()
            }
        } catch {
            if let waiting = starting.withLock({ $0.take() }) {
                waiting.resume(throwing: error)
            } else if !Task.isCancelled {
                fail("\(error)")
            }
        }
    }

    /// Reads the owner's stream `body`: its snapshot fills a new replica, handed to `started`;
    /// each later message is applied to it. Throws when the stream ends.
    private func replicate(
        _ body: HTTPClientResponse.Body, makeReplica: @Sendable () -> NamespaceEngine,
        useRules: @Sendable (NamespaceEngine, String) async -> Void, started: @Sendable (NamespaceEngine) -> Void
    ) async throws {
        var lines = LineSplitter()
        // Weak: an idle replica closes, and then the link stops.
        weak var replica: NamespaceEngine?
        var isStarted = false
        for try await chunk in body {
            lastHeard.store(Self.busy, ordering: .relaxed)
            for line in lines.lines(in: chunk) {
                let message = try RelayWire.message(line)
                if !isStarted {
                    // The owner is alive, and still making its snapshot.
                    if case .keepAlive = message { continue }
                    guard case .snapshot(_, _, let rules) = message else {
                        throw RelayWire.Malformed(description: "the stream did not begin with a snapshot")
                    }
                    let engine = makeReplica()
                    await engine.applyReplicated(message)
                    await useRules(engine, rules)
                    replica = engine
                    isStarted = true
                    started(engine)
                } else if let engine = replica {
                    await engine.applyReplicated(message)
                    if case .rules(let source) = message { await useRules(engine, source) }
                } else {
                    return
                }
            }
            lastHeard.store(Self.now(), ordering: .relaxed)
        }
        throw RelayWire.Malformed(description: "the owner ended the stream")
    }

    private static func now() -> Int64 {
        ContinuousClock.now.nanosecondsSinceReference
    }

    // MARK: Forwarding

    /// Passes `write` on to the owner after every write forwarded before it; `answered` runs
    /// with the owner's outcome and the sequence number it is durable at, or with the failure
    /// of the link (which fails the link), in the order the writes were forwarded.
    func forward(
        _ write: ForwardedWrite,
        answered: @escaping @Sendable (Result<(ForwardedWrite.Outcome, Int64), DatabaseError>) async -> Void
    ) {
        var writer = JSONWriter()
        write.encode(into: &writer)
        queue.add(writer.bytes, answered) { [self] writes in try await post(writes) }
    }

    /// Posts `writes`, each encoded (``ForwardedWrite/encode(into:)``).
    private func post(_ writes: [[UInt8]]) async throws -> (Int64, [ForwardedWrite.Outcome]) {
        var request = request(RelayEndpoint.writesPath)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(RelayWire.body(writes))
        do {
            let answer = try await ClusterHTTPClient.shared.execute(request, deadline: .now() + OwnerForwarding.answerDeadline)
            let body = try await answer.body.collect(upTo: Self.answerLimit)
            guard answer.status == .ok else {
                throw RelayWire.Malformed(description: "the owner answered \(answer.status.code): \(String(buffer: body))")
            }
            let (sequence, outcomes) = try RelayWire.answer(try JSONParser.parse(Array(body.readableBytesView)))
            guard outcomes.count == writes.count else { throw RelayWire.Malformed(description: "the owner answered a different count") }
            return (sequence, outcomes)
        } catch {
            fail("writes could not be passed on: \(error)")
            throw error
        }
    }
}

extension ContinuousClock.Instant {
    /// Nanoseconds since an arbitrary fixed instant of this process, for atomics.
    fileprivate var nanosecondsSinceReference: Int64 {
        let elapsed = self - OwnerLink.reference
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }
}

extension OwnerLink {
    fileprivate static let reference = ContinuousClock.now
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
