import Dispatch
import HearthCore

/// How a write or onDisconnect request ended: the server's status (or a client-side one such as
/// `disconnect` or `write_canceled`) and, on failure, the server's message.
public typealias RequestCompletion = (_ status: String, _ reason: String?) -> Void

/// A put or merge, kept from the call until its response (protocol §17.10.1).
struct PendingWrite {
    enum Kind {
        /// `p`; `hash` makes it a compare-and-set (a transaction).
        case put(hash: String?)
        case merge
    }

    let id: Int
    let kind: Kind
    let path: DatabasePath
    let data: JSONValue
    let completion: RequestCompletion
    /// Whether it went out on the current connection and awaits its response.
    var isSent = false

    var action: RequestAction {
        switch kind {
        case .put: .put
        case .merge: .merge
        }
    }

    /// A transaction's put fails when the connection drops while it is on the wire (§17.8.7);
    /// other writes are sent again.
    var failsOnDisconnect: Bool {
        if case .put(.some) = kind { return true }
        return false
    }
}

/// An `o`, `om` or `oc` request (protocol §5.9).
struct PendingOnDisconnect {
    let id: Int
    let action: RequestAction
    let path: DatabasePath
    let data: JSONValue
    let completion: RequestCompletion
    var isSent = false
}

/// A one-shot read (`g`).
struct PendingGet {
    let id: Int
    let path: DatabasePath
    let query: JSONValue?
    let completion: (Result<JSONValue, GetFailure>) -> Void
    var isSent = false
    /// Fails the read if it has not gone out in time.
    var offlineTimeout: DispatchWorkItem?
}

/// What identifies a listen: its location, its wire query (as JSON text) and its tag.
struct ListenKey: Hashable {
    let path: DatabasePath
    let query: String?
    let tag: Int?

    init(path: DatabasePath, query: JSONValue?, tag: Int?) {
        self.path = path
        self.query = query.map { JSONWriter.string($0) }
        self.tag = tag
    }
}

/// An active listen, sent again on every connection until it is removed.
struct ActiveListen {
    /// Orders listens by creation, and tells a replaced listen's late response apart.
    let id: Int
    let key: ListenKey
    /// The wire query object, sent as given.
    let query: JSONValue?
    let hash: () -> String
    let completion: (_ status: String, _ warnings: [String]) -> Void
}

/// Everything a ``PersistentConnection`` keeps across connections: listens, the ordered queue of
/// writes, pending reads and onDisconnect requests (protocol §17.10).
///
/// A plain value with no timing or I/O; the connection decides when to send.
struct OutstandingRequests {
    /// Puts and merges in call order.
    private(set) var writes: [PendingWrite] = []
    private(set) var onDisconnects: [PendingOnDisconnect] = []
    private(set) var gets: [Int: PendingGet] = [:]
    private(set) var listens: [ListenKey: ActiveListen] = [:]
    private var lastID = 0

    /// A fresh id; ids only grow, so they order requests by creation.
    mutating func makeID() -> Int {
        lastID += 1
        return lastID
    }

    // MARK: Writes

    mutating func append(_ write: PendingWrite) {
        writes.append(write)
    }

    mutating func markWriteSent(_ id: Int) {
        if let index = writes.firstIndex(where: { $0.id == id }) { writes[index].isSent = true }
    }

    /// Removes and returns the write `id`, if it is still queued.
    mutating func removeWrite(_ id: Int) -> PendingWrite? {
        guard let index = writes.firstIndex(where: { $0.id == id }) else { return nil }
        return writes.remove(at: index)
    }

    // MARK: onDisconnect

    mutating func append(_ request: PendingOnDisconnect) {
        onDisconnects.append(request)
    }

    mutating func markOnDisconnectSent(_ id: Int) {
        if let index = onDisconnects.firstIndex(where: { $0.id == id }) { onDisconnects[index].isSent = true }
    }

    mutating func removeOnDisconnect(_ id: Int) -> PendingOnDisconnect? {
        guard let index = onDisconnects.firstIndex(where: { $0.id == id }) else { return nil }
        return onDisconnects.remove(at: index)
    }

    // MARK: Gets

    mutating func add(_ get: PendingGet) {
        gets[get.id] = get
    }

    mutating func markGetSent(_ id: Int) {
        gets[id]?.isSent = true
        gets[id]?.offlineTimeout?.cancel()
        gets[id]?.offlineTimeout = nil
    }

    mutating func setOfflineTimeout(_ timeout: DispatchWorkItem, forGet id: Int) {
        gets[id]?.offlineTimeout = timeout
    }

    mutating func removeGet(_ id: Int) -> PendingGet? {
        let get = gets.removeValue(forKey: id)
        get?.offlineTimeout?.cancel()
        return get
    }

    /// The reads not yet sent, oldest first.
    var unsentGets: [PendingGet] {
        gets.values.filter { !$0.isSent }.sorted { $0.id < $1.id }
    }

    // MARK: Listens

    /// Adds a listen, replacing one with the same key.
    mutating func add(_ listen: ActiveListen) {
        listens[listen.key] = listen
    }

    mutating func removeListen(_ key: ListenKey) -> ActiveListen? {
        listens.removeValue(forKey: key)
    }

    /// Removes every listen at `path` (a `c` push revokes them all, as the Apple SDK does).
    mutating func removeListens(at path: DatabasePath) -> [ActiveListen] {
        let keys = listens.keys.filter { $0.path == path }
        return keys.compactMap { listens.removeValue(forKey: $0) }.sorted { $0.id < $1.id }
    }

    /// The listens in creation order.
    var orderedListens: [ActiveListen] {
        listens.values.sorted { $0.id < $1.id }
    }

    // MARK: Connection loss and purge

    /// What a lost connection ends: the requests that were on the wire and are not sent again.
    struct Dropped {
        /// Transaction puts, which fail with `disconnect`.
        var writes: [PendingWrite] = []
        /// onDisconnect requests, which fail with `disconnect`: the server ran or forgot them
        /// with the connection that carried them.
        var onDisconnects: [PendingOnDisconnect] = []
    }

    /// The connection was lost: every request on the wire is unsent again, except those that
    /// cannot be repeated, which are removed and returned. Reads sent are returned to the
    /// unsent state too; the caller restarts their offline timeouts.
    mutating func connectionLost() -> Dropped {
        var dropped = Dropped()
        writes.removeAll { write in
            guard write.isSent, write.failsOnDisconnect else { return false }
            dropped.writes.append(write)
            return true
        }
        for index in writes.indices { writes[index].isSent = false }
        onDisconnects.removeAll { request in
            guard request.isSent else { return false }
            dropped.onDisconnects.append(request)
            return true
        }
        for id in gets.keys { gets[id]?.isSent = false }
        return dropped
    }

    /// Removes every write, and every onDisconnect request not yet sent, for
    /// `purgeOutstandingWrites()` (§17.10.8), in the order their completions must run.
    mutating func purge() -> (writes: [PendingWrite], onDisconnects: [PendingOnDisconnect]) {
        let purgedWrites = writes
        writes = []
        let purgedOnDisconnects = onDisconnects.filter { !$0.isSent }
        onDisconnects.removeAll { !$0.isSent }
        return (purgedWrites, purgedOnDisconnects)
    }
}
