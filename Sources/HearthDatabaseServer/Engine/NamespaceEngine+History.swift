import HearthCore
import HearthEdge

/// A moment of a namespace's history to take a location back to.
public enum HistoryPoint: Sendable, Equatable {
    /// A time, in ms since 1970: every write applied after it is taken back.
    case time(Int64)
    /// Just before the write of this sequence number: it and every later write are taken back.
    case beforeWrite(Int64)
}

extension NamespaceEngine {
    /// The most log rows one page of history reads: a page may hold fewer entries than asked
    /// for, and then says where to go on (``WriteHistory/Page/next``).
    static let historyRowsPerPage = 5_000
    /// Log rows read per query.
    static let historyRowsPerQuery = 500

    /// The durable writes that changed `location` — there, above or below it — newest first:
    /// up to `limit` of those before write `sequence` (`nil`: from the newest). The log is read
    /// and decoded off the actor, so that writes go on meanwhile.
    public nonisolated func history(
        at location: DatabasePath, before sequence: Int64? = nil, limit: Int = 50
    ) async throws(DatabaseError) -> WriteHistory.Page {
        guard location.priorityOwner == nil else { throw .invalidPath }
        guard let store = await store else { return WriteHistory.Page(entries: [], next: nil, begins: 0) }
        do {
            var entries: [WriteHistory.Entry] = []
            var cursor = sequence ?? .max
            var scanned = 0
            while entries.count < limit, scanned < Self.historyRowsPerPage {
                let count = min(Self.historyRowsPerQuery, Self.historyRowsPerPage - scanned)
                let rows = try await store.logRows(before: cursor, limit: count)
                for row in rows {
                    scanned += 1
                    cursor = row.sequence
                    if let entry = WriteHistory.entry(try WriteLog.decode(row, relevantTo: location), seenFrom: location) {
                        entries.append(entry)
                        if entries.count == limit { break }
                    }
                }
                if rows.count < count, entries.count < limit {
                    return WriteHistory.Page(entries: entries, next: nil, begins: try await store.historyBegins())
                }
            }
            return WriteHistory.Page(entries: entries, next: cursor > 1 ? cursor : nil, begins: try await store.historyBegins())
        } catch {
            throw .unavailable(String(describing: error))
        }
    }

    /// The node at `location` as it was at `point`: the node now, with every write since then
    /// taken back, newest first. The log is read and decoded off the actor.
    public nonisolated func state(at location: DatabasePath, as point: HistoryPoint) async throws(DatabaseError) -> Node {
        guard location.priorityOwner == nil else { throw .invalidPath }
        let snapshot = await unloggedState(at: location)
        var node = snapshot.node
        if case .beforeWrite(let sequence) = point, sequence > snapshot.durableSequence || sequence < 1 {
            throw .historyNotKept("There is no write \(sequence) in the history.")
        }
        for write in snapshot.unlogged.reversed() {
            if case .time(let time) = point, write.time <= time { break }
            let changes = write.changes.map { WriteHistory.Change(path: $0.path, before: $0.before, after: $0.after) }
            try WriteHistory.undo(changes, of: write.time, at: location, on: &node)
        }
        guard let store = snapshot.store else { return node }
        do {
            // Rows newest first, until the first one the point does not take back.
            var cursor = snapshot.durableSequence + 1
            var reached = false
            scan: while true {
                let rows = try await store.logRows(before: cursor, limit: Self.historyRowsPerQuery)
                for row in rows {
                    switch point {
                    case .time(let time) where row.time <= time: reached = true
                    case .beforeWrite(let sequence) where row.sequence < sequence: reached = true
                    default: break
                    }
                    if reached { break scan }
                    try WriteHistory.undo(WriteLog.decode(row, relevantTo: location).changes, of: row.time, at: location, on: &node)
                    cursor = row.sequence
                    if case .beforeWrite(let sequence) = point, row.sequence == sequence { reached = true }
                }
                if rows.count < Self.historyRowsPerQuery { break }
            }
            if reached { return node }
            // The log ran out first: what it no longer keeps may have changed the location. Read
            // after the rows, as a fold may have deleted some meanwhile.
            let begins = try await store.historyBegins()
            switch point {
            case .time(let time) where time >= begins:
                return node
            case .time(let time):
                throw DatabaseError.historyNotKept(
                    "History begins at \(WriteHistory.iso8601(begins)): it does not reach back to \(WriteHistory.iso8601(time)).")
            case .beforeWrite(let sequence):
                throw DatabaseError.historyNotKept(
                    "Write \(sequence) is no longer kept: history begins at \(WriteHistory.iso8601(begins)).")
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw .unavailable(String(describing: error))
        }
    }

    /// Makes the node at `location` what it was at `point`, as a set by `caller` (rules apply);
    /// returns that node.
    public func restore(_ location: DatabasePath, as point: HistoryPoint, by caller: Caller) async throws(DatabaseError) -> Node {
        let node = try await state(at: location, as: point)
        _ = try await set(location, .node(node), as: caller)
        return node
    }

    /// The node at `location`, the writes applied but not yet in the log, the sequence number
    /// of the last write the log holds, and the store: all in one turn.
    private func unloggedState(
        at location: DatabasePath
    ) -> (node: Node, unlogged: [LoggedWrite], durableSequence: Int64, store: (any NamespaceStorage)?) {
        (read(location), committingWrites + pendingBatch.writes, durableSequence, store)
    }
}
