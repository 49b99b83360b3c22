import HearthCore

/// The journal: how a commit is recorded cheaply before the leaf rows catch up.
///
/// Each commit appends one journal row: a JSON array of `[path, node]` pairs, one per outermost
/// location the batch replaced, with the node that location held once the batch was applied
/// (export format, so priorities survive; server values already resolved). Setting each pair
/// in order onto the tree of the leaf rows restores the tree after that commit. A compaction
/// rewrites the leaf rows of every location the journal names and empties the journal, in one
/// transaction (see ``NamespaceStore``).
enum Journal {
    /// The journal row recording that the subtrees at `roots` became those of `tree`, or `nil`
    /// when it would be longer than `maximumBytes`: rendering stops there, so a large write
    /// costs no more than that before it goes to a compaction instead.
    static func entry(roots: [DatabasePath], tree: Node, maximumBytes: Int) -> String? {
        var writer = JSONWriter(reservingCapacity: 128, byteLimit: maximumBytes)
        writer.writeRaw("[")
        for (index, root) in roots.enumerated() {
            writer.writeRaw(index == 0 ? "[" : ",[")
            writer.writeString(root.description)
            writer.writeRaw(",")
            writer.write(tree.child(at: root), .export)
            writer.writeRaw("]")
            if writer.isPastLimit { return nil }
        }
        writer.writeRaw("]")
        return writer.isPastLimit ? nil : String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Applies the journal row `entry` (number `sequence`) to `tree`; returns the locations
    /// it replaced.
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

/// What the journal holds since the last compaction began, and when it is time for the next one.
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

    init(maximumEntries: Int = 1_000, maximumBytes: Int = 4 * 1024 * 1024, maximumLocations: Int = 10_000) {
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

    /// Records an appended row.
    mutating func record(_ roots: [DatabasePath], entryBytes: Int) {
        locations.formUnion(roots)
        entries += 1
        bytes += entryBytes
    }

    /// Forgets everything: a compaction took it over.
    mutating func reset() {
        locations = []
        entries = 0
        bytes = 0
    }
}
