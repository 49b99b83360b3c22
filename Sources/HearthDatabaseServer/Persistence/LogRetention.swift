/// Which rows of the write log the history keeps once they are folded: the most recent
/// `keptWrites` rows, and no more of them than fit in `keptBytes`.
///
/// Tracks the size of every row in the log, so that a fold knows how far to delete without
/// reading the log.
struct LogRetention: Sendable {
    let keptWrites: Int
    let keptBytes: Int
    /// The rows in the log, oldest first: each sequence number with the bytes of the rows up to
    /// it, counted from the first row ever appended.
    private var rows: [(sequence: Int64, end: Int64)] = []
    private var total: Int64 = 0
    /// `end` of the newest row deleted.
    private var deletedEnd: Int64 = 0

    init(keptWrites: Int, keptBytes: Int) {
        self.keptWrites = keptWrites
        self.keptBytes = keptBytes
    }

    /// The newest row in the log, or 0.
    var lastSequence: Int64 { rows.last?.sequence ?? 0 }

    /// Records row `sequence`, of `bytes` bytes, appended.
    mutating func appended(_ sequence: Int64, bytes: Int) {
        total += Int64(bytes)
        rows.append((sequence, total))
    }

    /// The newest row a fold through row `folded` deletes (0 or less: none).
    func deletionBound(foldedThrough folded: Int64) -> Int64 {
        guard let last = rows.last?.sequence else { return 0 }
        var bound = last - Int64(keptWrites)
        // The oldest row whose deletion, with the rows before it, leaves at most `keptBytes`.
        let excess = total - Int64(keptBytes)
        if excess > deletedEnd {
            var low = 0
            var high = rows.count - 1
            while low < high {
                let middle = (low + high) / 2
                if rows[middle].end < excess { low = middle + 1 } else { high = middle }
            }
            bound = max(bound, rows[low].sequence)
        }
        return min(folded, bound)
    }

    /// Records the rows up to `sequence` deleted.
    mutating func deleted(through sequence: Int64) {
        let count = rows.prefix { $0.sequence <= sequence }.count
        if count > 0 { deletedEnd = rows[count - 1].end }
        rows.removeFirst(count)
    }
}
