import Dispatch
import HearthCore

extension PersistentConnection {
    // MARK: Listens

    /// Listens at `path` for `query` (the wire query object, §7.1; `nil` for a default listen)
    /// with `tag` for a tagged query. The listen is sent now if connected and again after every
    /// reconnection, each time with the current `hash()` (§8.1). `completion` runs with each
    /// answer: `ok` with the server's warnings (`d.w`, such as `no_index`), or a failure, after
    /// which the listen is forgotten. Listening again with the same path, query and tag
    /// replaces the listen.
    public func listen(
        path: DatabasePath, query: JSONValue?, tag: Int?, hash: @escaping () -> String,
        completion: @escaping (_ status: String, _ warnings: [String]) -> Void
    ) {
        dispatchPrecondition(condition: .onQueue(queue))
        let key = ListenKey(path: path, query: query, tag: tag)
        let listen = ActiveListen(id: requests.makeID(), key: key, query: query, hash: hash, completion: completion)
        requests.add(listen)
        if isRestored { sendListen(listen) }
    }

    /// Stops the listen with this path, query and tag, sending `n` if connected. Unknown
    /// listens (never made, failed or revoked) send nothing.
    public func unlisten(path: DatabasePath, query: JSONValue?, tag: Int?) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let listen = requests.removeListen(ListenKey(path: path, query: query, tag: tag)) else { return }
        if isRestored {
            sendRequest(.unlisten, body: listenBody(listen, hash: nil), onResponse: nil)
        }
    }

    func sendListen(_ listen: ActiveListen) {
        sendRequest(.listen, body: listenBody(listen, hash: listen.hash())) { [weak self] status, data in
            self?.listenAnswered(listen, status: status, data: data)
        }
    }

    private func listenBody(_ listen: ActiveListen, hash: String?) -> JSONValue {
        .members([
            ("p", .string(listen.key.path.description)),
            ("q", listen.query),
            ("t", listen.key.tag.map { .number(.int(Int64($0))) }),
            ("h", hash.map { .string($0) }),
        ])
    }

    private func listenAnswered(_ listen: ActiveListen, status: String, data: JSONValue) {
        // A listen removed or replaced since it was sent has no one to tell.
        guard requests.listens[listen.key]?.id == listen.id else { return }
        if status != "ok" {
            _ = requests.removeListen(listen.key)
            logger.warning("listen at \(listen.key.path) failed: \(status)")
        }
        var warnings: [String] = []
        if case .array(let values)? = data["w"] { warnings = values.compactMap(\.stringValue) }
        listen.completion(status, warnings)
    }

    // MARK: Writes

    /// Queues a put (`p`, §5.7) after every earlier write; `hash` makes it a compare-and-set.
    public func put(path: DatabasePath, data: JSONValue, hash: String? = nil, completion: @escaping RequestCompletion) {
        dispatchPrecondition(condition: .onQueue(queue))
        enqueue(PendingWrite(id: requests.makeID(), kind: .put(hash: hash), path: path, data: data, completion: completion))
    }

    /// Queues a merge (`m`, §5.8): `data` maps paths relative to `path` to their new values.
    public func merge(path: DatabasePath, data: JSONValue, completion: @escaping RequestCompletion) {
        dispatchPrecondition(condition: .onQueue(queue))
        enqueue(PendingWrite(id: requests.makeID(), kind: .merge, path: path, data: data, completion: completion))
    }

    private func enqueue(_ write: PendingWrite) {
        requests.append(write)
        if isRestored { sendWrite(write) }
    }

    func sendWrite(_ write: PendingWrite) {
        var body: [(String, JSONValue?)] = [("p", .string(write.path.description)), ("d", write.data)]
        if case .put(let hash?) = write.kind { body.append(("h", .string(hash))) }
        requests.markWriteSent(write.id)
        sendRequest(write.action, body: .members(body)) { [weak self] status, data in
            guard let self, let write = requests.removeWrite(write.id) else { return }
            complete(write.completion, action: write.action, path: write.path, status: status, data: data)
        }
    }

    /// Completes every queued put and merge, then every onDisconnect request not yet sent, with
    /// `write_canceled`, in queue order, sending nothing (§17.10.8). Writes already on the wire
    /// may still be applied by the server; their answers are ignored.
    public func purgeOutstandingWrites() {
        dispatchPrecondition(condition: .onQueue(queue))
        let purged = requests.purge()
        for write in purged.writes { write.completion("write_canceled", nil) }
        for request in purged.onDisconnects { request.completion("write_canceled", nil) }
    }

    // MARK: onDisconnect

    /// Asks the server to set `data` at `path` when this connection ends (`o`).
    public func onDisconnectPut(path: DatabasePath, data: JSONValue, completion: @escaping RequestCompletion) {
        dispatchPrecondition(condition: .onQueue(queue))
        enqueueOnDisconnect(.onDisconnectPut, path: path, data: data, completion: completion)
    }

    /// Asks the server to merge `data` at `path` when this connection ends (`om`).
    public func onDisconnectMerge(path: DatabasePath, data: JSONValue, completion: @escaping RequestCompletion) {
        dispatchPrecondition(condition: .onQueue(queue))
        enqueueOnDisconnect(.onDisconnectMerge, path: path, data: data, completion: completion)
    }

    /// Cancels the onDisconnect operations at and below `path` (`oc`).
    public func onDisconnectCancel(path: DatabasePath, completion: @escaping RequestCompletion) {
        dispatchPrecondition(condition: .onQueue(queue))
        enqueueOnDisconnect(.onDisconnectCancel, path: path, data: .null, completion: completion)
    }

    private func enqueueOnDisconnect(
        _ action: RequestAction, path: DatabasePath, data: JSONValue, completion: @escaping RequestCompletion
    ) {
        let request = PendingOnDisconnect(id: requests.makeID(), action: action, path: path, data: data, completion: completion)
        requests.append(request)
        if isRestored { sendOnDisconnect(request) }
    }

    func sendOnDisconnect(_ request: PendingOnDisconnect) {
        requests.markOnDisconnectSent(request.id)
        let body = JSONValue.members([("p", .string(request.path.description)), ("d", request.data)])
        sendRequest(request.action, body: body) { [weak self] status, data in
            guard let self, let request = requests.removeOnDisconnect(request.id) else { return }
            complete(request.completion, action: request.action, path: request.path, status: status, data: data)
        }
    }

    private func complete(
        _ completion: RequestCompletion, action: RequestAction, path: DatabasePath, status: String, data: JSONValue
    ) {
        guard status == "ok" else {
            // A stale compare-and-set is a transaction's normal retry, not a failure.
            if status != "datastale" { logger.warning("\(action.operationName) at \(path) failed: \(status)") }
            completion(status, data.stringValue)
            return
        }
        completion(status, nil)
    }

    // MARK: Reads

    /// Reads `path` once (`g`, §5.6) with `query` (`nil` reads the whole location). Without a
    /// connection the read waits up to ``getOfflineTimeout`` seconds, then fails as offline.
    public func get(path: DatabasePath, query: JSONValue?, completion: @escaping (Result<JSONValue, GetFailure>) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        let id = requests.makeID()
        requests.add(PendingGet(id: id, path: path, query: query, completion: completion))
        if isRestored {
            sendGet(id)
        } else {
            startOfflineTimeout(forGet: id)
        }
    }

    func sendGet(_ id: Int) {
        guard let get = requests.gets[id] else { return }
        requests.markGetSent(id)
        let body = JSONValue.members([("p", .string(get.path.description)), ("q", get.query ?? .object([]))])
        sendRequest(.get, body: body) { [weak self] status, data in
            guard let get = self?.requests.removeGet(id) else { return }
            get.completion(status == "ok" ? .success(data) : .failure(.server(status: status, message: data.stringValue)))
        }
    }

    /// Fails the read `id` if it is still unsent after ``getOfflineTimeout``.
    func startOfflineTimeout(forGet id: Int) {
        let timeout = DispatchWorkItem { [weak self] in
            guard let self, requests.gets[id]?.isSent == false, let get = requests.removeGet(id) else { return }
            get.completion(.failure(.offline))
        }
        requests.setOfflineTimeout(timeout, forGet: id)
        queue.asyncAfter(deadline: .now() + Self.getOfflineTimeout, execute: timeout)
    }
}

extension RequestAction {
    /// The operation named in failure warnings (`<op> at <path> failed: <status>`).
    var operationName: String {
        switch self {
        case .put: "set"
        case .merge: "update"
        case .onDisconnectPut: "onDisconnect set"
        case .onDisconnectMerge: "onDisconnect update"
        case .onDisconnectCancel: "onDisconnect cancel"
        case .listen: "listen"
        case .unlisten: "unlisten"
        case .get: "get"
        case .auth: "auth"
        case .unauth: "unauth"
        }
    }
}
