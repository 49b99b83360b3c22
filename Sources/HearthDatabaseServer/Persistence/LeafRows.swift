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

    /// One row of a subtree, as ``forEachRow(of:at:_:)`` visits it: the row key is `/` before
    /// each of `keys`, then `/.priority` for a priority row.
    struct Row {
        var keys: [ChildKey]
        var isPriority: Bool
        var value: LeafValue

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

/// Rebuilds a tree from rows read in any order.
struct TreeAssembler {
    private final class Builder {
        var leaf: LeafValue?
        var priority: Priority?
        var children: [String: Builder] = [:]
    }

    private let root = Builder()
    /// How many rows were added.
    private(set) var rowCount = 0

    /// Adds one row. Rows that do not decode are reported, not skipped silently.
    mutating func add(rowKey: String, json: String) throws(PersistenceError) {
        guard case let value? = try? JSONParser.parse(json), let leaf = Self.leafValue(value) else {
            throw .corruptRow(rowKey)
        }
        rowCount += 1
        var builder = root
        var segments = rowKey.split(separator: "/", omittingEmptySubsequences: true)[...]
        if segments.last == Substring(LeafRows.priorityKey) {
            segments = segments.dropLast()
            for segment in segments { builder = child(of: builder, String(segment)) }
            switch leaf {
            case .number(let number): builder.priority = .number(number)
            case .string(let string): builder.priority = .string(string)
            case .bool: throw .corruptRow(rowKey)
            }
            return
        }
        for segment in segments { builder = child(of: builder, String(segment)) }
        builder.leaf = leaf
    }

    /// The tree the rows describe.
    func assemble() -> Node {
        Self.freeze(root)
    }

    private func child(of builder: Builder, _ key: String) -> Builder {
        if let existing = builder.children[key] { return existing }
        let created = Builder()
        builder.children[key] = created
        return created
    }

    private static func freeze(_ builder: Builder) -> Node {
        if let leaf = builder.leaf { return .leaf(leaf, priority: builder.priority) }
        let children = builder.children.map { (ChildKey($0.key), freeze($0.value)) }
        return .build(children: children, priority: builder.priority)
    }

    private static func leafValue(_ json: JSONValue) -> LeafValue? {
        switch json {
        case .bool(let bool): .bool(bool)
        case .number(let number): .number(number)
        case .string(let string): .string(string)
        default: nil
        }
    }
}
