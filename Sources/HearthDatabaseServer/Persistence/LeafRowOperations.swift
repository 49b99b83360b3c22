import HearthCore

/// Where the leaf rows a commit changes go: a ``CommitPlan`` for a namespace's SQLite tables, a
/// ``PostgresCommitBatch`` for PostgreSQL. A rewrite sends every deletion before its first put.
protocol LeafRowOperations {
    /// Deletes the row `key` and every row below it.
    mutating func deleteSubtree(_ key: String)
    /// Deletes the row `key` alone.
    mutating func deleteRow(_ key: String)
    /// Writes `row`.
    mutating func put(_ row: LeafRows.Row)
}

extension LeafRowOperations {
    /// Makes the leaf rows of the outermost locations `roots` (none lies below another) those
    /// of `tree`.
    mutating func rewrite(_ roots: [DatabasePath], from tree: Node) {
        clear(roots, from: tree)
        for root in roots {
            LeafRows.forEachRow(of: tree.child(at: root), at: root) { put($0) }
        }
    }

    /// Deletes the leaf rows of the outermost locations `roots` (none lies below another), and
    /// those of their ancestors that `tree` no longer holds: what a rewrite does before it
    /// writes the rows of `tree` there.
    mutating func clear(_ roots: [DatabasePath], from tree: Node) {
        var ancestors = Set<DatabasePath>()
        for root in roots {
            var ancestor = root
            while !ancestor.isRoot {
                ancestor = ancestor.parent
                ancestors.insert(ancestor)
            }
        }
        for root in roots {
            deleteSubtree(LeafRows.rowKey(root))
        }
        for ancestor in ancestors {
            switch tree.child(at: ancestor) {
            case .null:
                deleteRow(LeafRows.rowKey(ancestor))
                deleteRow(LeafRows.priorityRowKey(ancestor))
            case .object(_, let priority):
                // A leaf turned into an object loses its value and its priority.
                deleteRow(LeafRows.rowKey(ancestor))
                if priority == nil { deleteRow(LeafRows.priorityRowKey(ancestor)) }
            case .leaf:
                break
            }
        }
    }
}
