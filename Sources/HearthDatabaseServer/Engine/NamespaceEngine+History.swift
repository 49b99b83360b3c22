import HearthCore
import HearthEdge

extension NamespaceEngine {
    /// The most log rows one page of history reads: a page may hold fewer entries than asked
    /// for, and then says where to go on (``WriteHistory/Page/next``).
    static let historyRowsPerPage = 5_000

    /// The durable writes that changed `location` — there, above or below it — newest first:
    /// up to `limit` of those before write `sequence` (`nil`: from the newest).
    public func history(
        at location: DatabasePath, before sequence: Int64? = nil, limit: Int = 50
    ) async throws(DatabaseError) -> WriteHistory.Page {
        guard location.priorityOwner == nil else { throw .invalidPath }
        guard let store else { return WriteHistory.Page(entries: [], next: nil, begins: 0) }
        do {
            var entries: [WriteHistory.Entry] = []
            var cursor = sequence ?? .max
            var scanned = 0
            while entries.count < limit, scanned < Self.historyRowsPerPage {
                let rows = try await store.logRows(before: cursor, limit: min(500, Self.historyRowsPerPage - scanned))
                guard !rows.isEmpty else {
                    return WriteHistory.Page(entries: entries, next: nil, begins: try await store.historyBegins())
                }
                for row in rows {
                    scanned += 1
                    cursor = row.sequence
                    if let entry = WriteHistory.entry(try WriteLog.decode(row), seenFrom: location) {
                        entries.append(entry)
                        if entries.count == limit { break }
                    }
                }
            }
            return WriteHistory.Page(entries: entries, next: cursor > 1 ? cursor : nil, begins: try await store.historyBegins())
        } catch {
            throw .unavailable(String(describing: error))
        }
    }

    /// The node at `location` as it was at `time` (ms since 1970): the node now, with every
    /// write applied since then taken back, newest first.
    public func state(at location: DatabasePath, asOf time: Int64) async throws(DatabaseError) -> Node {
        guard location.priorityOwner == nil else { throw .invalidPath }
        // What the log does not hold yet is taken back from memory, in the same turn as the
        // tree is read; the log is read up to the last write it held then.
        var node = read(location)
        for write in (committingWrites + pendingBatch.writes).reversed() where write.time > time {
            let changes = write.changes.map { WriteHistory.Change(path: $0.path, before: $0.before, after: $0.after) }
            try WriteHistory.undo(changes, of: write.time, at: location, on: &node)
        }
        guard let store else { return node }
        let through = durableSequence
        do {
            let rows = try await store.logRows(after: time, through: through)
            // Read after the rows: a fold that deleted some of them meanwhile moved it past `time`.
            let begins = try await store.historyBegins()
            guard time >= begins else {
                throw DatabaseError.historyNotKept(
                    "History begins at \(WriteHistory.iso8601(begins)): it does not reach back to \(WriteHistory.iso8601(time)).")
            }
            for row in rows {
                try WriteHistory.undo(WriteLog.decode(row).changes, of: row.time, at: location, on: &node)
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw .unavailable(String(describing: error))
        }
        return node
    }

    /// Makes the node at `location` what it was at `time`, as a set by `caller` (rules apply);
    /// returns that node.
    public func restore(_ location: DatabasePath, asOf time: Int64, as caller: Caller) async throws(DatabaseError) -> Node {
        let node = try await state(at: location, asOf: time)
        _ = try await set(location, .node(node), as: caller)
        return node
    }
}
