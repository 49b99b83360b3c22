import HearthCore
import Logging
import SQLiteNIO
import Synchronization

/// The durable copy of one namespace: a SQLite database in WAL mode with `synchronous=FULL`, so
/// a commit returns only once it is on disk.
///
/// Rows are laid out as ``LeafRows`` describes. A commit rewrites only the subtrees that the
/// writes of a batch touched, never the whole database. Not reentrant: ``NamespaceEngine`` calls
/// it from one commit loop at a time.
final class NamespaceStore: Sendable {
    private let connection: SQLiteConnection

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Opens (creating if needed) the database file at `path`.
    static func open(path: String, logger: Logger) async throws -> NamespaceStore {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        let store = NamespaceStore(connection: connection)
        do {
            for statement in [
                "PRAGMA journal_mode=WAL",
                "PRAGMA synchronous=FULL",
                // Checkpoints reuse the log; this trims it back so overwrites never grow the files.
                "PRAGMA journal_size_limit=8388608",
                "CREATE TABLE IF NOT EXISTS leaves (path TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
                "CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
            ] {
                _ = try await connection.query(statement)
            }
        } catch {
            try? await connection.close()
            throw PersistenceError.sqlite(String(describing: error))
        }
        return store
    }

    func close() async {
        try? await connection.close()
    }

    /// Reads the whole tree.
    func loadTree() async throws -> Node {
        let assembler = Mutex(TreeAssembler())
        let failure = Mutex<(any Error)?>(nil)
        try await connection.query("SELECT path, value FROM leaves", []) { row in
            guard let path = row.column("path")?.string, let value = row.column("value")?.string else { return }
            assembler.withLock { assembler in
                do {
                    try assembler.add(rowKey: path, json: value)
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return assembler.withLock { $0.assemble() }
    }

    /// Makes the subtrees at `paths` in the store equal to those of `tree`, in one transaction.
    func commit(paths: [DatabasePath], tree: Node) async throws {
        let plan = CommitPlan(paths: paths, tree: tree)
        do {
            _ = try await connection.query("BEGIN IMMEDIATE")
            if !plan.subtreeRoots.isEmpty {
                _ = try await connection.query(
                    """
                    DELETE FROM leaves WHERE path IN (
                      SELECT j.value FROM json_each(?1) j
                      UNION ALL
                      SELECT l.path FROM json_each(?1) j JOIN leaves l
                        ON l.path >= j.value || '/' AND l.path < j.value || '0')
                    """, [.text(plan.subtreeRoots)])
            }
            if !plan.exactDeletes.isEmpty {
                _ = try await connection.query(
                    "DELETE FROM leaves WHERE path IN (SELECT value FROM json_each(?1))", [.text(plan.exactDeletes)])
            }
            if !plan.inserts.isEmpty {
                _ = try await connection.query(
                    "INSERT OR REPLACE INTO leaves (path, value) SELECT value->>0, value->>1 FROM json_each(?1)",
                    [.text(plan.inserts)])
            }
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw PersistenceError.sqlite(String(describing: error))
        }
    }

    /// A stored setting (for example the rules document), or `nil`.
    func setting(_ name: String) async throws -> String? {
        let rows = try await connection.query("SELECT value FROM settings WHERE name = ?1", [.text(name)])
        return rows.first?.column("value")?.string
    }

    /// Stores a setting durably.
    func setSetting(_ name: String, _ value: String) async throws {
        _ = try await connection.query(
            "INSERT OR REPLACE INTO settings (name, value) VALUES (?1, ?2)", [.text(name), .text(value)])
    }
}

/// The statements' parameters for one commit, each a JSON array.
private struct CommitPlan {
    /// Row keys whose whole subtree is deleted and rewritten.
    var subtreeRoots: String = ""
    /// Row keys of ancestors that no longer hold a leaf (or a priority) of their own.
    var exactDeletes: String = ""
    /// `[row key, JSON text]` pairs to insert.
    var inserts: String = ""

    init(paths: [DatabasePath], tree: Node) {
        // Keep only the outermost paths: a subtree rewrite covers everything below it.
        let sorted = Set(paths).sorted { $0.count < $1.count }
        var roots: [DatabasePath] = []
        for path in sorted where !roots.contains(where: { $0.contains(path) }) {
            roots.append(path)
        }
        var ancestors = Set<DatabasePath>()
        for root in roots {
            var ancestor = root
            while !ancestor.isRoot {
                ancestor = ancestor.parent
                ancestors.insert(ancestor)
            }
        }
        var exact: [String] = []
        for ancestor in ancestors {
            switch tree.child(at: ancestor) {
            case .null:
                exact.append(LeafRows.rowKey(ancestor))
                exact.append(LeafRows.priorityRowKey(ancestor))
            case .object(_, let priority):
                // A leaf turned into an object loses its value and its priority.
                exact.append(LeafRows.rowKey(ancestor))
                if priority == nil { exact.append(LeafRows.priorityRowKey(ancestor)) }
            case .leaf:
                break
            }
        }
        var rows: [(String, String)] = []
        for root in roots {
            LeafRows.rows(of: tree.child(at: root), at: root, into: &rows)
        }
        subtreeRoots = Self.jsonArray(roots.map(LeafRows.rowKey))
        exactDeletes = Self.jsonArray(exact)
        inserts = Self.jsonPairs(rows)
        if roots.isEmpty { subtreeRoots = "" }
        if exact.isEmpty { exactDeletes = "" }
        if rows.isEmpty { inserts = "" }
    }

    private static func jsonArray(_ strings: [String]) -> String {
        var writer = JSONWriter()
        writer.writeRaw("[")
        for (index, string) in strings.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            writer.writeString(string)
        }
        writer.writeRaw("]")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static func jsonPairs(_ pairs: [(String, String)]) -> String {
        var writer = JSONWriter(reservingCapacity: pairs.count * 32)
        writer.writeRaw("[")
        for (index, pair) in pairs.enumerated() {
            writer.writeRaw(index > 0 ? ",[" : "[")
            writer.writeString(pair.0)
            writer.writeRaw(",")
            writer.writeString(pair.1)
            writer.writeRaw("]")
        }
        writer.writeRaw("]")
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
