import HearthCore

/// Hands the leaf rows of subtrees to `send` as JSON arrays of `[key, value]` pairs of about
/// `chunkBytes` each: how a write too large for one statement reaches its table
/// (``NamespaceStore``). A large object is cut between its children, so that no array holds
/// more than one small child's rows past the limit, and no array is larger than it needs to be.
struct LeafRowChunker {
    /// Objects of at least this many nodes are cut between their children.
    static let nodesToSplit = 4_096

    let chunkBytes: Int
    let send: (String) async throws -> Void
    private var writer: JSONWriter
    private var isEmpty = true
    /// The bytes of the arrays sent so far.
    private(set) var sentBytes = 0

    init(chunkBytes: Int, send: @escaping (String) async throws -> Void) {
        self.chunkBytes = chunkBytes
        self.send = send
        self.writer = JSONWriter(reservingCapacity: chunkBytes + chunkBytes / 4)
        writer.writeRaw("[")
    }

    /// Adds the rows of `node`, stored at `keys`; sends the arrays that fill up.
    mutating func add(_ node: Node, at keys: [ChildKey]) async throws {
        if case .object(let children, let priority) = node, node.hasAtLeast(nodes: Self.nodesToSplit) {
            if let priority { append(LeafRows.Row(keys: keys, isPriority: true, value: priority.leafValue)) }
            for (key, child) in children {
                try await add(child, at: keys + [key])
            }
            return
        }
        LeafRows.forEachRow(of: node, at: DatabasePath(validatedKeys: keys)) { append($0) }
        if writer.bytes.count >= chunkBytes { try await flush() }
    }

    /// Sends the rows not sent yet.
    mutating func flush() async throws {
        guard !isEmpty else { return }
        writer.writeRaw("]")
        let chunk = String(decoding: writer.bytes, as: UTF8.self)
        writer = JSONWriter(reservingCapacity: chunkBytes + chunkBytes / 4)
        writer.writeRaw("[")
        isEmpty = true
        sentBytes += chunk.utf8.count
        try await send(chunk)
    }

    private mutating func append(_ row: LeafRows.Row) {
        writer.writeRaw(isEmpty ? "[" : ",[")
        isEmpty = false
        row.writeKey(to: &writer)
        writer.writeRaw(",")
        writer.write(row.value)
        writer.writeRaw("]")
    }
}
