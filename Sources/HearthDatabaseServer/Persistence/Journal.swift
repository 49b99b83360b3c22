import HearthCore

/// The journal of stores written before the write log (``WriteLog``): one row per commit, a
/// JSON array of `[path, node]` pairs, one per outermost location the batch replaced, with the
/// node that location held once the batch was applied (export format). Opening such a store
/// replays its rows, folds them into the leaf rows and drops the table (``NamespaceStore``).
enum Journal {
    /// Applies the journal row `entry` (number `sequence`) of an older store to `tree`; returns
    /// the locations it replaced.
    static func replay(_ entry: String, sequence: Int64, onto tree: inout Node) throws(PersistenceError) -> [DatabasePath] {
        let corrupt = PersistenceError.corruptRow("journal \(sequence)")
        guard case .array(let pairs)? = try? JSONParser.parse(entry) else { throw corrupt }
        var roots: [DatabasePath] = []
        for pair in pairs {
            guard case .array(let parts) = pair, parts.count == 2, case .string(let location) = parts[0],
                let path = try? DatabasePath(location),
                let node = try? NodeBuilder(timestamp: 0).build(parts[1], at: path, existing: .null)
            else { throw corrupt }
            tree = tree.updatingChild(at: path, with: node)
            roots.append(path)
        }
        return roots
    }

    /// `paths` without duplicates and without any path that another one lies below.
    static func outermost(_ paths: [DatabasePath]) -> [DatabasePath] {
        let unique = Set(paths)
        // Distinct paths of one depth cannot lie below one another (the common case: writes
        // of many clients to sibling locations).
        if let depth = paths.first?.count, unique.allSatisfy({ $0.count == depth }) { return Array(unique) }
        // In key order a path comes right before the paths below it, so the last kept path is
        // the only one that can cover the next.
        let sorted = unique.sorted { $0.keys.lexicographicallyPrecedes($1.keys) }
        var roots: [DatabasePath] = []
        for path in sorted where !(roots.last?.contains(path) ?? false) {
            roots.append(path)
        }
        return roots
    }
}

/// What the journal (the log rows not yet folded into the leaf rows) holds since the last
/// compaction began, and when it is time for the next one.
///
/// The limits bound the journal's size on disk (a workload that keeps overwriting the same
/// paths never grows it), the time a restart spends replaying it, and the work of one
/// compaction. Past four times a limit, while a compaction still runs, commits wait for it.
struct JournalLedger: Sendable {
    /// The most rows the journal holds before a compaction.
    let maximumEntries: Int
    /// The most bytes of journal rows before a compaction.
    let maximumBytes: Int
    /// The most distinct locations named before a compaction.
    let maximumLocations: Int

    init(maximumEntries: Int = 10_000, maximumBytes: Int = 4 * 1024 * 1024, maximumLocations: Int = 10_000) {
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
        self.maximumLocations = maximumLocations
    }

    /// Every location the journal names.
    private(set) var locations = Set<DatabasePath>()
    private var entries = 0
    private var bytes = 0

    /// Whether a limit is reached: time for a compaction.
    var isFull: Bool { isPast(1) }

    /// Whether four times a limit is reached: a compaction has fallen behind.
    var isOverflowing: Bool { isPast(4) }

    private func isPast(_ factor: Int) -> Bool {
        entries >= factor * maximumEntries || bytes >= factor * maximumBytes || locations.count >= factor * maximumLocations
    }

    /// Records appended rows.
    mutating func record(_ roots: [DatabasePath], entries: Int, entryBytes: Int) {
        locations.formUnion(roots)
        self.entries += entries
        bytes += entryBytes
    }

    /// Forgets everything: a compaction took it over.
    mutating func reset() {
        locations = []
        entries = 0
        bytes = 0
    }
}
