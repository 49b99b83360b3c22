import HearthCore

/// How a tree is laid out in SQLite: one row per leaf and one per priority.
///
/// A row's key is the node's path with a leading slash (`/users/ada/name`; the root is the empty
/// string). A priority is stored under the pseudo-key `.priority` (`/users/ada/.priority`),
/// which no real key can collide with because keys never contain a dot. Values are JSON text.
/// All rows of a subtree share the prefix `<path>/`, so a subtree is one range of the primary key.
enum LeafRows {
    static let priorityKey = ".priority"

    /// The row key of `path`.
    static func rowKey(_ path: DatabasePath) -> String {
        path.isRoot ? "" : path.description
    }

    /// The row key of the priority of the node at `path`.
    static func priorityRowKey(_ path: DatabasePath) -> String {
        rowKey(path) + "/" + priorityKey
    }

    /// The leaf a row's value, parsed, holds.
    static func leaf(_ value: JSONValue, rowKey: String) throws(PersistenceError) -> LeafValue {
        switch value {
        case .bool(let bool): .bool(bool)
        case .number(let number): .number(number)
        case .string(let string): .string(string)
        default: throw .corruptRow(rowKey)
        }
    }

    /// The priority a priority row's leaf holds.
    static func priority(of leaf: LeafValue, rowKey: String) throws(PersistenceError) -> Priority {
        switch leaf {
        case .number(let number): .number(number)
        case .string(let string): .string(string)
        case .bool: throw .corruptRow(rowKey)
        }
    }

    /// One row of a subtree, as ``forEachRow(of:at:_:)`` visits it: the row key is `/` before
    /// each of `keys`, then `/.priority` for a priority row.
    struct Row {
        var keys: [ChildKey]
        var isPriority: Bool
        var value: LeafValue

        /// The row key.
        var key: String {
            var key = ""
            for childKey in keys {
                key += "/"
                key += childKey.string
            }
            return isPriority ? key + "/" + LeafRows.priorityKey : key
        }

        /// Writes the row key as a JSON string, without building it as a string first.
        func writeKey(to writer: inout JSONWriter) {
            writer.writeRaw("\"")
            for key in keys {
                writer.writeRaw("/")
                writer.writeEscaped(key.string)
            }
            if isPriority { writer.writeRaw("/" + LeafRows.priorityKey) }
            writer.writeRaw("\"")
        }
    }

    /// Calls `visit` with every row of the subtree `node` stored at `path`, in key order. A
    /// large subtree has millions of rows: no row key is built as a string.
    static func forEachRow(of node: Node, at path: DatabasePath, _ visit: (Row) -> Void) {
        var row = Row(keys: path.keys, isPriority: false, value: .bool(false))
        forEachRow(of: node, row: &row, visit)
    }

    private static func forEachRow(of node: Node, row: inout Row, _ visit: (Row) -> Void) {
        switch node {
        case .null:
            return
        case .leaf(let value, let priority):
            row.value = value
            visit(row)
            if let priority { visitPriority(priority, row: &row, visit) }
        case .object(let children, let priority):
            if let priority { visitPriority(priority, row: &row, visit) }
            for (key, child) in children {
                row.keys.append(key)
                forEachRow(of: child, row: &row, visit)
                row.keys.removeLast()
            }
        }
    }

    private static func visitPriority(_ priority: Priority, row: inout Row, _ visit: (Row) -> Void) {
        row.isPriority = true
        row.value = priority.leafValue
        visit(row)
        row.isPriority = false
    }
}

/// Rebuilds a tree from its rows read in row-key order (byte order, as `ORDER BY path` reads
/// them), in one pass and without a lookup per row: the rows of an object are one range of that
/// order, so the objects being built are those on the path of the current row, kept as a stack,
/// and each is finished once a row lies outside it. Children arrive in byte order of their keys;
/// an object whose keys are not in Firebase's order (`"10"` before `"9"`) is sorted when finished.
struct TreeAssembler {
    /// An object being built.
    private struct Frame {
        let key: String
        var children: [(key: ChildKey, value: Node)] = []
        var priority: Priority?
        /// Whether the children so far are in Firebase's key order.
        var isOrdered = true

        init(key: String) {
            self.key = key
        }

        mutating func append(_ key: ChildKey, _ node: Node) {
            if let last = children.last, !(last.key < key) { isOrdered = false }
            children.append((key, node))
        }

        func node() -> Node {
            isOrdered
                ? .make(children: ChildMap(sortedEntries: children), priority: priority) : .build(children: children, priority: priority)
        }
    }

    /// The root and the objects on the path of the last row, outermost first.
    private var stack = [Frame(key: "")]
    /// The value of a root that is a leaf (its row key is the empty string).
    private var rootLeaf: LeafValue?
    private var lastRowKey: String?
    /// How many rows were added.
    private(set) var rowCount = 0

    /// Adds the next row, its value parsed. A row out of order, or a priority that is neither a
    /// number nor a string, is reported, not skipped silently.
    mutating func add(rowKey: String, leaf: LeafValue) throws(PersistenceError) {
        if let lastRowKey, !Self.precedes(lastRowKey, rowKey) { throw .corruptRow(rowKey) }
        lastRowKey = rowKey
        rowCount += 1
        // Split on the bytes: a key never holds "/", and splitting by Character costs more than
        // the rest of the row.
        var segments = rowKey.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) }
        guard segments.last == Substring(LeafRows.priorityKey) else {
            guard let key = segments.popLast() else {
                rootLeaf = leaf
                return
            }
            open(segments)
            stack[stack.count - 1].append(ChildKey(String(key)), .leaf(leaf, priority: nil))
            return
        }
        segments.removeLast()
        let priority = try LeafRows.priority(of: leaf, rowKey: rowKey)
        try setPriority(priority, of: segments, rowKey: rowKey)
    }

    /// The tree the rows describe.
    mutating func assemble() -> Node {
        closeFrames(downTo: 1)
        if let rootLeaf { return .leaf(rootLeaf, priority: stack[0].priority) }
        return stack[0].node()
    }

    /// Makes the stack the objects at `segments`: finishes those that are not on that path and
    /// opens the missing ones.
    private mutating func open(_ segments: some Collection<Substring>) {
        let common = openDepth(of: segments)
        closeFrames(downTo: common + 1)
        for segment in segments.dropFirst(common) { stack.append(Frame(key: String(segment))) }
    }

    /// How many of `segments` are the keys of the open objects, from the root on.
    private func openDepth(of segments: some Collection<Substring>) -> Int {
        var common = 0
        for segment in segments {
            guard common + 1 < stack.count, stack[common + 1].key == segment else { break }
            common += 1
        }
        return common
    }

    /// The priority of the node at `segments`: the object open there (children with keys that
    /// sort before `.priority`, such as `-a`, came first), a leaf just added, or an object whose
    /// children follow.
    private mutating func setPriority(_ priority: Priority, of segments: [Substring], rowKey: String) throws(PersistenceError) {
        if openDepth(of: segments) == segments.count {
            closeFrames(downTo: segments.count + 1)
            stack[segments.count].priority = priority
            return
        }
        guard let key = segments.last else { return }
        open(segments.dropLast())
        // A leaf's priority row sorts after its row, possibly after a sibling's rows too
        // ("/a/b", "/a/b-c", "/a/b/.priority").
        let childKey = ChildKey(String(key))
        let top = stack.count - 1
        if let index = stack[top].children.lastIndex(where: { $0.key == childKey }) {
            guard case .leaf(let value, nil) = stack[top].children[index].value else { throw .corruptRow(rowKey) }
            stack[top].children[index].value = .leaf(value, priority: priority)
            return
        }
        stack.append(Frame(key: String(key)))
        stack[stack.count - 1].priority = priority
    }

    /// Finishes the open objects above the first `depth` of the stack, each into its parent.
    private mutating func closeFrames(downTo depth: Int) {
        while stack.count > depth {
            let frame = stack.removeLast()
            let node = frame.node()
            if !node.isNull { stack[stack.count - 1].append(ChildKey(frame.key), node) }
        }
    }

    /// Whether `first` sorts before `second` in byte order, as SQLite orders the row keys.
    private static func precedes(_ first: String, _ second: String) -> Bool {
        var first = first
        var second = second
        return first.withUTF8 { a in second.withUTF8 { b in a.lexicographicallyPrecedes(b) } }
    }
}
