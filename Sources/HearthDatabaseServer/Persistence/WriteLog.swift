import HearthCore
import HearthEdge

/// The rows of the namespace's write log: one per write, in the order the writes were applied.
///
/// A row is a JSON object: `t`, the time the write was applied (ms since 1970); `by`, its author
/// (``LoggedWrite/author``); `via`, its transport; and `w`, one object per location it replaced,
/// with the location `p`, the node after `a` and the node before `b`, in export format (so that
/// priorities survive; server values already resolved). `b` is left out when the node before
/// was too large to keep; `a` when the write went straight into the leaf rows, which a row
/// without `a` must have been folded into already.
///
/// Setting each `a` of the rows after the last folded one, in order, onto the tree of the leaf
/// rows restores the tree. Setting each `b` of the rows after a time, newest first, onto a
/// tree takes it back to that time (``WriteHistory``).
enum WriteLog {
    /// One row to append.
    struct Row {
        /// The row's JSON text (its time is its `t`).
        let text: String
    }

    /// A row read back.
    struct StoredRow {
        let sequence: Int64
        let time: Int64
        let text: String
    }

    /// The longest node before a row keeps, in bytes of JSON.
    static let maximumBeforeBytes = 256 * 1024
    /// The most bytes of nodes before one batch's rows keep together.
    static let maximumBatchBeforeBytes = 4 << 20

    /// The time of the row whose text is `text`, read from the `{"t":` it begins with (the row
    /// is written so), without parsing the rest: a row may hold megabytes of data.
    static func time(ofRow text: String) -> Int64? {
        let prefix = #"{"t":"#
        guard text.hasPrefix(prefix) else { return nil }
        let digits = text.utf8.dropFirst(prefix.utf8.count).prefix {
            $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
        return Int64(String(decoding: digits, as: UTF8.self))
    }

    /// The rows of `writes`, and whether they can be replayed: whether the nodes after of each
    /// write took at most `maximumAfterBytes`. The row of a write past it leaves every `a` out,
    /// and the batch must go straight into the leaf rows. Rendering stops at the limit, so that
    /// a large write costs no more than that before it goes there instead. Nodes before are kept
    /// up to ``maximumBeforeBytes`` each and ``maximumBatchBeforeBytes`` for the batch.
    static func rows(of writes: [LoggedWrite], maximumAfterBytes: Int) -> (rows: [Row], replayable: Bool) {
        var rows: [Row] = []
        rows.reserveCapacity(writes.count)
        var replayable = true
        var beforeBudget = maximumBatchBeforeBytes
        for write in writes {
            let (row, hasAfter) = row(of: write, afterBudget: maximumAfterBytes, beforeBudget: &beforeBudget)
            rows.append(row)
            replayable = replayable && hasAfter
        }
        return (rows, replayable)
    }

    /// The row of `write`, with its nodes after when they take at most `afterBudget` (`nil`:
    /// never), and whether it has them; with each node before that fits in `beforeBudget`.
    private static func row(of write: LoggedWrite, afterBudget: Int?, beforeBudget: inout Int) -> (Row, hasAfter: Bool) {
        var afterBudget = afterBudget
        var writer = JSONWriter(reservingCapacity: 128)
        var scope = writer.beginObject()
        writer.writeKey("t", in: &scope)
        writer.write(JSONValue.number(.int(write.time)))
        writer.writeKey("by", in: &scope)
        writer.write(write.author)
        writer.writeKey("via", in: &scope)
        writer.writeString(write.transport.rawValue)
        writer.writeKey("w", in: &scope)
        writer.writeRaw("[")
        var beforeBytes = 0
        for (index, change) in write.changes.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            var changeScope = writer.beginObject()
            writer.writeKey("p", in: &changeScope)
            writer.writeString(change.path.description)
            if let budget = afterBudget {
                writer.writeKey("a", in: &changeScope)
                let start = writer.bytes.count
                guard writer.write(change.after, .export, ifAtMost: budget) else {
                    return row(of: write, afterBudget: nil, beforeBudget: &beforeBudget)
                }
                afterBudget = budget - (writer.bytes.count - start)
            }
            if let before = change.before {
                let mark = writer.bytes.count
                writer.writeKey("b", in: &changeScope)
                let start = writer.bytes.count
                if writer.write(before, .export, ifAtMost: min(maximumBeforeBytes, beforeBudget - beforeBytes)) {
                    beforeBytes += writer.bytes.count - start
                } else {
                    writer.truncate(to: mark)
                }
            }
            writer.endObject(changeScope)
        }
        writer.writeRaw("]")
        writer.endObject(scope)
        beforeBudget -= beforeBytes
        return (Row(text: String(decoding: writer.bytes, as: UTF8.self)), afterBudget != nil)
    }

    /// Applies the nodes after of row `row` to `tree` — with `location`, only those at, above
    /// or below it — and returns the locations it replaced.
    static func replay(_ row: StoredRow, onto tree: inout Node, at location: DatabasePath? = nil) throws(PersistenceError) -> [DatabasePath]
    {
        let changes = try decode(row, relevantTo: location).changes
        var roots: [DatabasePath] = []
        for change in changes {
            guard let after = change.after else { throw .corruptRow("log \(row.sequence) has no node after") }
            tree = tree.updatingChild(at: change.path, with: after)
            roots.append(change.path)
        }
        return roots
    }

    /// Row `row` read back; with `location`, only its changes at, above or below it.
    static func decode(_ row: StoredRow, relevantTo location: DatabasePath? = nil) throws(PersistenceError) -> WriteHistory.Entry {
        let corrupt = PersistenceError.corruptRow("log \(row.sequence)")
        guard let json = try? JSONParser.parse(row.text), case .array(let items)? = json["w"] else { throw corrupt }
        var changes: [WriteHistory.Change] = []
        for item in items {
            guard case .string(let text)? = item["p"], let path = try? DatabasePath(text) else { throw corrupt }
            if let relevant = location, !relevant.contains(path), !path.contains(relevant) { continue }
            func node(_ key: String) throws(PersistenceError) -> Node? {
                guard let value = item[key] else { return nil }
                do {
                    return try NodeBuilder(timestamp: 0).build(value, at: path, existing: .null)
                } catch {
                    throw corrupt
                }
            }
            changes.append(WriteHistory.Change(path: path, before: try node("b"), after: try node("a")))
        }
        let transport: String
        if case .string(let via)? = json["via"] { transport = via } else { transport = "" }
        return WriteHistory.Entry(
            sequence: row.sequence, time: row.time, author: json["by"] ?? .object([]), transport: transport, changes: changes)
    }
}
