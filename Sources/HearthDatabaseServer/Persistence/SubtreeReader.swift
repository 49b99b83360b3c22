import HearthCore
import Logging
import SQLiteNIO

/// Reads one subtree of a namespace's store straight from its file, on a connection of its own:
/// how a read is served while the namespace is still loading (``DatabaseService``).
///
/// A read takes the subtree's leaf rows and replays the journal's rows that touch it, in one
/// read transaction, so that it sees the store as one commit left it; reads run one after
/// another. A subtree of more rows than ``maximumRows`` is not read: the whole load, under way,
/// serves it soon.
actor SubtreeReader {
    /// The most leaf rows one read assembles.
    static let maximumRows = 10_000

    private let connection: SQLiteConnection
    /// The last read asked for: the next one starts once it is done.
    private var last: Task<Node?, any Error>?

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// A reader of the store at `path`.
    static func open(path: String, logger: Logger) async throws -> SubtreeReader {
        SubtreeReader(connection: try await SQLiteConnection.open(storage: .file(path: path), logger: logger))
    }

    /// Closes the connection once the reads asked for are done.
    func close() async {
        _ = await last?.result
        try? await connection.close()
    }

    /// The node at `path`, or `nil` when this reader cannot tell: the subtree is too large, or
    /// the store keeps a journal of an older kind.
    func read(_ path: DatabasePath) async throws -> Node? {
        let previous = last
        let read = Task { [connection] in
            _ = await previous?.result
            _ = try await connection.query("BEGIN")
            do {
                let node = try await Self.read(path, on: connection)
                _ = try await connection.query("COMMIT")
                return node
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
        }
        last = read
        return try await read.value
    }

    private static func read(_ path: DatabasePath, on connection: SQLiteConnection) async throws -> Node? {
        guard try await connection.query("SELECT 1 FROM sqlite_master WHERE name = 'journal'").isEmpty else { return nil }
        let key = LeafRows.rowKey(path)
        let rows = try await connection.query(
            "SELECT path, value FROM leaves WHERE path = ?1 OR (path >= ?1 || '/' AND path < ?1 || '0') ORDER BY path LIMIT ?2",
            [.text(key), .integer(Self.maximumRows + 1)])
        guard rows.count <= Self.maximumRows else { return nil }
        var assembler = TreeAssembler()
        for row in rows {
            guard let rowKey = row.column("path")?.string, let value = row.column("value")?.string else {
                throw PersistenceError.corruptRow("leaves")
            }
            try assembler.add(rowKey: rowKey, json: value)
        }
        var tree = assembler.assemble()
        let folded =
            try await connection.query(
                "SELECT value FROM settings WHERE name = ?1", [.text(NamespaceStore.foldedSetting)]
            ).first?.column("value")?.string.flatMap { Int($0) } ?? 0
        for row in try await WriteLog.StoredRow.query("WHERE sequence > ?1 ORDER BY sequence", [.integer(folded)], on: connection) {
            _ = try WriteLog.replay(row, onto: &tree, at: path)
        }
        return tree.child(at: path)
    }
}
