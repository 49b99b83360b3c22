import HearthCore
import HearthEdge
import Logging
import NIOCore

/// The protocol state of one realtime connection, and the handling of its requests (§5), one
/// at a time in arrival order (§4.2).
///
/// Pushes reach the connection's ``Outbox`` straight from the engine; a request's response goes
/// to the same outbox once the request is done, so a listen's data precedes its `ok`. A write is
/// applied in turn but answered when it is durable, by the engine after the write's events went
/// out: its effect on this connection's own listens precedes its `ok`, and the connection does
/// not wait for the commit before the next request.
struct RealtimeSession {
    /// Where the session reads and listens: the namespace's engine, or a relay's replica.
    private let engine: NamespaceEngine
    /// Where its writes go: the same engine, or the owner through a relay's link.
    private let writer: any NamespaceWriter
    private let outbox: any RealtimeOutbox
    private let logger: Logger
    private let credentials: any CredentialVerifying
    private let activity: RealtimeActivity
    /// Queues a message for this session, as if it came from its connection.
    private let wake: @Sendable (RealtimeConnection.Inbound) -> Void
    /// Counts the credentials the session authenticated with, so that a lapse reported for an
    /// earlier one is ignored.
    private var credentialGeneration = 0
    /// Waits for the current credential to lapse.
    private var credentialWatch: Task<Void, Never>?
    /// Whom the connection acts for; rules see its `auth`.
    private var caller = Caller.signedOut
    private var listens: [ListenIdentity: ListenerID] = [:]
    private var onDisconnect = OnDisconnectQueue()

    /// How a client names a listen: its location, and its tag for a filtered query (§7.2).
    private struct ListenIdentity: Hashable {
        let path: DatabasePath
        let tag: Int64?
    }

    init(
        engine: NamespaceEngine, writer: any NamespaceWriter, outbox: any RealtimeOutbox, credentials: any CredentialVerifying,
        activity: RealtimeActivity, wake: @escaping @Sendable (RealtimeConnection.Inbound) -> Void, logger: Logger
    ) {
        self.engine = engine
        self.writer = writer
        self.outbox = outbox
        self.credentials = credentials
        self.activity = activity
        self.wake = wake
        self.logger = logger
    }

    /// Handles one whole message from the client.
    mutating func handle(_ message: ByteBuffer) async {
        await WriteTransport.$current.withValue(.realtime) { await handleMessage(message) }
    }

    private mutating func handleMessage(_ message: ByteBuffer) async {
        activity.messages.increment()
        let inbound: RealtimeInbound
        do {
            inbound = try RealtimeInbound.parse(Array(message.readableBytesView))
        } catch {
            switch error {
            case .malformed(let reason):
                logger.debug("malformed realtime message", metadata: ["reason": "\(logSafe: reason)"])
                outbox.send(RealtimeMessages.error("Malformed message: \(reason)"))
            case .badRequest(let number, let reason):
                outbox.send(RealtimeMessages.failure(number, status: "failed", message: reason))
            }
            return
        }
        switch inbound {
        case .control(let type):
            // Pings get a pong; `a` and `n` only matter when upgrading a long-poll session.
            if type == "p" { outbox.send(RealtimeMessages.pong) }
        case .request(let number, let action, let body):
            // Unfollowed, a request is answered without a closure or a look at its path.
            guard let feed = activity.feed, feed.isFollowed else {
                await answer(action, body: body, number: number)
                return
            }
            let path: String
            if case .string(let text)? = body["p"] { path = text } else { path = "" }
            await feed.recording(
                product: "database", transport: "realtime", method: RealtimeActivity.method(of: action), path: path,
                {
                    let failure = await answer(action, body: body, number: number)
                    RequestTrace.current?.noteCaller(caller)
                    RequestTrace.current?.noteNamespace(engine.name)
                    return failure
                }, status: { failure in failure.map { ($0.status, true) } ?? ("ok", false) })
        }
    }

    /// Serves request `number` and answers it when it fails; returns why it failed.
    @discardableResult
    private mutating func answer(_ action: String, body: JSONValue, number: Int64) async -> RequestError? {
        do {
            try await serve(action, body: RequestBody(json: body), number: number)
            return nil
        } catch {
            if case .database(.permissionDenied(let explanation?)) = error {
                outbox.send(RealtimeMessages.securityDebug(explanation))
            }
            outbox.send(RealtimeMessages.failure(number, status: error.status, message: error.message))
            return error
        }
    }

    /// Answers a message that exceeded the size limit, when its request number can be found.
    func handleOversized(prefix: ByteBuffer) {
        let text = "Data to write exceeds the maximum size that can be modified with a single request."
        if let number = RealtimeInbound.requestNumber(inPrefixOf: Array(prefix.readableBytesView)) {
            outbox.send(RealtimeMessages.failure(number, status: "write_too_big", message: text))
        } else {
            outbox.send(RealtimeMessages.error(text))
        }
    }

    private mutating func serve(_ action: String, body: RequestBody, number: Int64) async throws(RequestError) {
        switch action {
        case "s", "appcheck", "unappcheck", "unappeck":
            // Stats are not kept; App Check is not enforced (as in the emulator).
            outbox.send(RealtimeMessages.ok(number))
        case "auth", "gauth":
            await authenticate(body, number: number)
        case "unauth":
            watchCredential(nil)
            await become(.signedOut)
            outbox.send(RealtimeMessages.ok(number))
        case "q", "l":
            try await listen(body, number: number)
        case "n", "u":
            if let id = listens.removeValue(forKey: ListenIdentity(path: try body.path(), tag: body.integer("t"))) {
                await engine.removeListener(id)
            }
            outbox.send(RealtimeMessages.ok(number))
        case "g":
            try await get(body, number: number)
        case "p":
            try await put(body, number: number)
        case "m":
            let path = try body.path()
            let entries = try Self.mergeEntries(body.data, at: path)
            let respond = respondWhenDurable(number)
            try await perform { () async throws(DatabaseError) in try await writer.update(path, entries, as: caller, then: respond) }
        case "o":
            let path = try body.writeLocation()
            try await queueOnDisconnect(.set(path, try Self.prepare(body.data, at: path)), number: number)
        case "om":
            let path = try body.path()
            try await queueOnDisconnect(.update(path, try Self.mergeEntries(body.data, at: path)), number: number)
        case "oc":
            onDisconnect.cancel(at: try body.path())
            outbox.send(RealtimeMessages.ok(number))
        default:
            throw .invalid("Unknown action \"\(action)\".")
        }
    }

    /// Acts for `caller` from now on; listens it may not read are revoked.
    private mutating func become(_ caller: Caller) async {
        guard caller != self.caller else { return }
        self.caller = caller
        if !listens.isEmpty { await engine.changeCaller(of: Array(listens.values), to: caller) }
    }

    private mutating func authenticate(_ body: RequestBody, number: Int64) async {
        let caller: Caller
        let expires: Int64
        let credential = body.string("cred") ?? ""
        do {
            (caller, expires) = try await credentials.caller(
                credential: credential, authvar: body["authvar"], noauth: body["noauth"] == .bool(true),
                now: NamespaceEngine.now() / 1000)
        } catch {
            watchCredential(nil)
            await become(.signedOut)
            let expired = error == .expired
            outbox.send(
                RealtimeMessages.failure(
                    number, status: expired ? "expired_token" : "invalid_token",
                    message: expired ? "Auth token is expired." : "Could not parse auth token."))
            return
        }
        watchCredential(caller == .admin ? nil : (credential, body["authvar"], body["noauth"] == .bool(true)))
        await become(caller)
        outbox.send(RealtimeMessages.authOK(number, auth: caller.authVariable, expires: expires))
    }

    /// Watches `credential` until it expires or is revoked (then ``credentialLapsed(_:generation:)``
    /// runs in turn with the requests); `nil` stops watching.
    private mutating func watchCredential(_ credential: (String, authvar: JSONValue?, noauth: Bool)?) {
        credentialWatch?.cancel()
        credentialWatch = nil
        credentialGeneration += 1
        guard let (text, authvar, noauth) = credential else { return }
        let generation = credentialGeneration
        let credentials = credentials
        let wake = wake
        credentialWatch = Task {
            if let failure = await credentials.lapse(of: text, authvar: authvar, noauth: noauth) {
                wake(.credentialLapsed(failure, generation: generation))
            }
        }
    }

    /// The credential expired or was revoked: `ac` (§6.4), then the connection acts signed out,
    /// and listens it may no longer read are revoked (`c`).
    mutating func credentialLapsed(_ failure: CredentialFailure, generation: Int) async {
        guard generation == credentialGeneration else { return }
        watchCredential(nil)
        switch failure {
        case .expired: outbox.send(RealtimeMessages.authRevoked(status: "expired_token", reason: "Auth token is expired."))
        case .invalid: outbox.send(RealtimeMessages.authRevoked(status: "invalid_token", reason: "Auth token is no longer valid."))
        }
        await become(.signedOut)
    }

    private mutating func listen(_ body: RequestBody, number: Int64) async throws(RequestError) {
        let path = try body.path()
        let tag = body.integer("t")
        let query = try body["q"].map { json throws(RequestError) in try WireQuery.parse(json) } ?? .all
        let identity = ListenIdentity(path: path, tag: tag)
        if let replaced = listens.removeValue(forKey: identity) {
            await engine.removeListener(replaced)
        }
        let sink = RealtimeListenSink(outbox: outbox, tag: tag, path: path, query: body["q"])
        let listening = try await perform { () async throws(DatabaseError) in
            try await engine.addListener(
                at: path, query: query, format: RealtimeEventFormat(), sink: sink, unlessHash: body.string("h"),
                allowUnindexed: true, as: caller)
        }
        listens[identity] = listening.id
        outbox.send(RealtimeMessages.listenOK(number, unindexed: listening.isUnindexed))
    }

    private func get(_ body: RequestBody, number: Int64) async throws(RequestError) {
        let path = try body.path()
        let query = try body["q"].map { json throws(RequestError) in try WireQuery.parse(json) } ?? .all
        let node: Node
        if query.loadsAllData {
            node = try await perform { () async throws(DatabaseError) in try await engine.read(path, query: query, as: caller) }
        } else {
            let children = try await perform { () async throws(DatabaseError) in try await engine.query(path, query, as: caller) }
            node = .build(children: children.map { ($0.key, $0.value) })
        }
        outbox.send(RealtimeMessages.data(number, node))
    }

    /// Applies a put and goes on: its response is sent once it is durable, after its events.
    private func put(_ body: RequestBody, number: Int64) async throws(RequestError) {
        let path = try body.writeLocation()
        let precondition = body.string("h").map(WritePrecondition.hash)
        let value = try Self.prepare(body.data, at: path)
        let outbox = outbox
        try await perform { () async throws(DatabaseError) in
            try await writer.set(path, value, ifMatch: precondition, as: caller) { result in
                switch result {
                case .success(.written):
                    outbox.send(RealtimeMessages.ok(number))
                case .success(.preconditionFailed):
                    let text = "The data at this location has changed."
                    outbox.send(RealtimeMessages.failure(number, status: "datastale", message: text))
                case .failure(let error):
                    Self.refuse(number, error, outbox: outbox)
                }
            }
        }
    }

    /// The completion of a write that answers request `number`.
    private func respondWhenDurable(_ number: Int64) -> DurabilityHandler {
        { [outbox] error in
            if let error {
                Self.refuse(number, error, outbox: outbox)
            } else {
                outbox.send(RealtimeMessages.ok(number))
            }
        }
    }

    /// Answers request `number` with `error`, which came after the request was taken: a commit
    /// that failed, or a refusal by the owner of a relayed namespace.
    private static func refuse(_ number: Int64, _ error: DatabaseError, outbox: any RealtimeOutbox) {
        if case .permissionDenied(let explanation?) = error {
            outbox.send(RealtimeMessages.securityDebug(explanation))
        }
        let failure = RequestError.database(error)
        outbox.send(RealtimeMessages.failure(number, status: failure.status, message: failure.message))
    }

    private mutating func queueOnDisconnect(_ write: QueuedWrite, number: Int64) async throws(RequestError) {
        try await perform { () async throws(DatabaseError) in try await engine.validate(write, as: caller) }
        onDisconnect.add(write)
        outbox.send(RealtimeMessages.ok(number))
    }

    /// The entries of a merge at `location`: relative paths and their new values.
    private static func mergeEntries(_ data: JSONValue, at location: DatabasePath) throws(RequestError) -> [(
        DatabasePath, WriteValue
    )] {
        guard case .object(let members) = data else { throw .invalid("Merge data must be an object.") }
        var entries: [(DatabasePath, WriteValue)] = []
        for member in members {
            guard let path = try? DatabasePath(writeLocation: member.key), !path.isRoot else { throw .invalidPath }
            entries.append((path, try prepare(member.value, at: location.appending(path))))
        }
        return entries
    }

    /// The value of a write, built here, outside the namespace's writer (see ``WriteValue``).
    private static func prepare(_ json: JSONValue, at path: DatabasePath) throws(RequestError) -> WriteValue {
        do {
            return try WriteValue.prepare(json, at: path)
        } catch {
            throw .database(.invalidData(error))
        }
    }

    private func perform<T>(_ operation: () async throws(DatabaseError) -> T) async throws(RequestError) -> T {
        do {
            return try await operation()
        } catch {
            throw .database(error)
        }
    }

    /// The connection ended: stops its listens and applies its onDisconnect writes, atomically
    /// and in order, with server values resolved now: through the writer `reopen` gives when
    /// this session's engine was dropped (a lost store, a relay's broken link), since the
    /// writes would be refused there.
    mutating func disconnect(reopen: @Sendable () async throws -> any NamespaceWriter) async {
        watchCredential(nil)
        for id in listens.values { await engine.removeListener(id) }
        listens = [:]
        guard !onDisconnect.writes.isEmpty else { return }
        let (writes, caller) = (onDisconnect.writes, caller)
        onDisconnect = OnDisconnectQueue()
        // A second attempt, through the namespace opened anew, when the first failed without
        // landing because the engine was dropped meanwhile.
        var writer = self.writer
        var reopens = engine.isLost.load(ordering: .acquiring)
        for attempt in 1...2 {
            if reopens {
                do {
                    writer = try await reopen()
                } catch {
                    logger.error(
                        "onDisconnect writes lost: the namespace could not be opened anew",
                        metadata: ["error": "\(logSafe: (error as? DatabaseError)?.message ?? "\(error)")"])
                    return
                }
            }
            let failure = await WriteTransport.$current.withValue(.onDisconnect) { [writer] () async -> DatabaseError? in
                do throws(DatabaseError) {
                    try await writer.apply(writes, as: caller)
                    return nil
                } catch {
                    return error
                }
            }
            guard let failure else { return }
            // Again only when they surely did not land.
            guard attempt == 1, writer.failedWithoutLanding(failure) else {
                logger.error("onDisconnect writes failed", metadata: ["error": "\(logSafe: failure.message)"])
                return
            }
            reopens = true
        }
    }
}
