import Dispatch
import HearthCore
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO
import Synchronization

/// Reads pages from a namespace's leaf rows (``LeafRows``), on a connection of its own, and
/// blocks its caller until they are read: a page is loaded wherever a tree is read, in code that
/// cannot wait asynchronously.
///
/// A subtree of at most `wholeSubtreeRows` rows is read whole, its objects resident. A larger
/// one is read one level deep, in one statement that seeks from child to child; its objects
/// become pages of their own. The connection runs on threads of the loader's own, so that no
/// caller ever waits for a thread it occupies.
final class PageLoader: Sendable {
    private static let eventLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
    private static let threadPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    private let file: String
    /// The most rows a page reads whole.
    private let wholeSubtreeRows: Int
    private let logger: Logger
    /// Opened on the first read, closed once no page needs this loader any more: a page of an
    /// older tree may still be read while its namespace closes.
    private let connection = Mutex<SQLiteConnection?>(nil)

    init(file: String, wholeSubtreeRows: Int, logger: Logger) {
        self.file = file
        self.wholeSubtreeRows = wholeSubtreeRows
        self.logger = logger
    }

    deinit {
        _ = connection.withLock { $0 }?.close()
    }

    /// The node stored at `path`: null, a leaf, or an object whose children are a page.
    func node(at path: DatabasePath, source: PageSource) throws(PersistenceError) -> Node {
        let key = LeafRows.rowKey(path)
        let rows = try aggregatedRows(
            """
            SELECT path, value FROM leaves WHERE path IN (?1, ?2)
            UNION ALL
            SELECT * FROM (SELECT path, value FROM leaves WHERE path >= ?3 AND path < ?4 AND path <> ?2 LIMIT 1)
            """,
            columns: "path, json(value)", [.text(key), .text(LeafRows.priorityRowKey(path)), .text(key + "/"), .text(key + "0")])
        var leaf: LeafValue?
        var priority: Priority?
        var hasChildren = false
        for row in rows {
            guard case .array(let columns) = row, columns.count == 2, case .string(let rowKey) = columns[0] else {
                throw .corruptRow("leaves")
            }
            if rowKey == key {
                leaf = try LeafRows.leaf(columns[1], rowKey: rowKey)
            } else if rowKey == LeafRows.priorityRowKey(path) {
                priority = try LeafRows.priority(of: LeafRows.leaf(columns[1], rowKey: rowKey), rowKey: rowKey)
            } else {
                hasChildren = true
            }
        }
        if let leaf { return .leaf(leaf, priority: priority) }
        guard hasChildren else { return .null }
        return .object(ChildMap(paged: ChildPage(path: path, source: source)), priority: priority)
    }

    /// Whether the object at `path` has more rows than a page reads whole.
    func isWide(_ path: DatabasePath) -> Bool {
        let key = LeafRows.rowKey(path)
        return reading(path) { () throws(PersistenceError) in
            let rows = try query(
                "SELECT count(*) AS rows FROM (SELECT 1 FROM leaves WHERE path >= ?1 AND path < ?2 LIMIT ?3)",
                [.text(key + "/"), .text(key + "0"), .integer(wholeSubtreeRows + 1)])
            return (rows.first?.column("rows")?.integer ?? 0) > wholeSubtreeRows
        }
    }

    /// The children of the object at `path`, and an estimate of the bytes they take in memory;
    /// the children in `known`, read before on their own, are taken as they are. A file that
    /// cannot be read leaves no answer a tree could give: the process stops.
    func children(of path: DatabasePath, known: [ChildKey: Node], source: PageSource) -> (ChildMap, bytes: Int) {
        reading(path) { () throws(PersistenceError) in try readChildren(of: path, known: known, source: source) }
    }

    /// The node at `path`, read on its own; the process stops when the file cannot be read.
    func child(at path: DatabasePath, source: PageSource) -> Node {
        reading(path) { () throws(PersistenceError) in try node(at: path, source: source) }
    }

    /// Runs `read`, a read of the file at `path`; stops the process when it fails.
    private func reading<Value>(_ path: DatabasePath, _ read: () throws(PersistenceError) -> Value) -> Value {
        do {
            return try read()
        } catch {
            logger.critical(
                "a page of the database cannot be read", metadata: ["file": "\(file)", "path": "\(path)", "error": "\(error)"])
            fatalError("the database file \(file) cannot be read at \(path): \(error)")
        }
    }

    private func readChildren(
        of path: DatabasePath, known: [ChildKey: Node], source: PageSource
    ) throws(PersistenceError) -> (ChildMap, bytes: Int) {
        let key = LeafRows.rowKey(path)
        let rows = try aggregatedRows(
            "SELECT path, value FROM leaves WHERE path >= ?1 AND path < ?2 ORDER BY path LIMIT ?3",
            columns: "path, json(value)", [.text(key + "/"), .text(key + "0"), .integer(wholeSubtreeRows + 1)])
        guard rows.count > wholeSubtreeRows else {
            var assembler = TreeAssembler()
            var bytes = 0
            for row in rows {
                guard case .array(let columns) = row, columns.count == 2, case .string(let rowKey) = columns[0] else {
                    throw .corruptRow("leaves")
                }
                let leaf = try LeafRows.leaf(columns[1], rowKey: rowKey)
                try assembler.add(rowKey: rowKey, leaf: leaf)
                if case .string(let string) = leaf { bytes += string.utf8.count }
                bytes += Self.rowBytes + rowKey.utf8.count
            }
            let children = assembler.assemble().child(at: path).children
            guard !children.isEmpty else { throw .corruptRow("\(key)/ holds no rows") }
            return (children, bytes)
        }
        return try readLevel(of: path, key: key, known: known, source: source)
    }

    /// Bytes of memory per row read whole, besides its text: its node and its place in a map.
    private static let rowBytes = 160
    /// Bytes of memory per child of a page read one level deep.
    private static let childBytes = 200

    /// The children of the object whose row key is `key`, read one level deep: each row the
    /// walk visits is the first of a child (or a leaf's priority); an object child is skipped
    /// whole by seeking past its range.
    private func readLevel(
        of path: DatabasePath, key: String, known: [ChildKey: Node], source: PageSource
    ) throws(PersistenceError) -> (ChildMap, bytes: Int) {
        let prefix = key + "/"
        // Character position (1-based) at which a child's key begins in a row key.
        let keyStart = prefix.unicodeScalars.count + 1
        let rows = try aggregatedRows(
            """
            WITH RECURSIVE walk(row) AS (
              SELECT (SELECT path FROM leaves WHERE path >= ?1 AND path < ?2 ORDER BY path LIMIT 1)
              UNION ALL
              SELECT (SELECT path FROM leaves WHERE path < ?2 AND path >= CASE
                  WHEN instr(substr(row, ?3), '/') > 0 THEN substr(row, 1, ?3 + instr(substr(row, ?3), '/') - 2) || '0'
                  ELSE row || ' ' END
                ORDER BY path LIMIT 1)
              FROM walk WHERE row IS NOT NULL
            )
            SELECT row, value, (SELECT value FROM leaves WHERE path = child || '/.priority') AS priority FROM (
              SELECT row, (SELECT value FROM leaves WHERE path = row) AS value, CASE
                  WHEN instr(substr(row, ?3), '/') > 0 THEN substr(row, 1, ?3 + instr(substr(row, ?3), '/') - 2)
                  ELSE row END AS child
              FROM walk WHERE row IS NOT NULL)
            """,
            columns: "row, json(value), json(priority)", [.text(prefix), .text(key + "0"), .integer(keyStart)])
        var children: [ChildKey: Node] = [:]
        var stringBytes = 0
        for row in rows {
            guard case .array(let columns) = row, columns.count == 3, case .string(let rowKey) = columns[0] else {
                throw .corruptRow("leaves")
            }
            let rest = rowKey.utf8.dropFirst(prefix.utf8.count)
            let name = String(decoding: rest.prefix { $0 != UInt8(ascii: "/") }, as: UTF8.self)
            guard name != LeafRows.priorityKey else { continue }
            let childKey = ChildKey(name)
            let priority =
                columns[2] == .null ? nil : try LeafRows.priority(of: LeafRows.leaf(columns[2], rowKey: rowKey), rowKey: rowKey)
            if rest.count == name.utf8.count {
                let leaf = try LeafRows.leaf(columns[1], rowKey: rowKey)
                children[childKey] = .leaf(leaf, priority: priority)
                if case .string(let string) = leaf { stringBytes += string.utf8.count }
            } else if children[childKey] == nil {
                children[childKey] =
                    known[childKey] ?? .object(ChildMap(paged: ChildPage(path: path.child(childKey), source: source)), priority: priority)
            }
        }
        guard !children.isEmpty else { throw .corruptRow("\(key)/ holds no rows") }
        let entries = children.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        return (ChildMap(sortedEntries: entries), entries.count * Self.childBytes + stringBytes)
    }

    /// The rows of `sql`, each an array of its `columns` (SQL expressions over its columns), as
    /// one JSON array that SQLite builds: one row to hand over instead of thousands.
    private func aggregatedRows(_ sql: String, columns: String, _ binds: [SQLiteData]) throws(PersistenceError) -> [JSONValue] {
        let rows = try query("SELECT json_group_array(json_array(\(columns))) AS rows FROM (\(sql))", binds)
        guard let text = rows.first?.column("rows")?.string, case .array(let items)? = try? JSONParser.parse(text) else {
            throw .corruptRow("leaves")
        }
        return items
    }

    /// Runs `sql` and waits for its rows.
    private func query(_ sql: String, _ binds: [SQLiteData]) throws(PersistenceError) -> [SQLiteRow] {
        do {
            return try Self.wait(openConnection().query(sql, binds))
        } catch let error as PersistenceError {
            throw error
        } catch {
            throw .sqlite(String(describing: error))
        }
    }

    private func openConnection() throws -> SQLiteConnection {
        if let open = connection.withLock({ $0 }) { return open }
        let opened = try Self.wait(
            SQLiteConnection.open(storage: .file(path: file), threadPool: Self.threadPool, logger: logger, on: Self.eventLoop))
        return connection.withLock { connection in
            if let connection {
                _ = opened.close()
                return connection
            }
            connection = opened
            return opened
        }
    }

    /// Blocks until `future` completes. Never called on the loader's own threads.
    private static func wait<Value: Sendable>(_ future: EventLoopFuture<Value>) throws -> Value {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Value, any Error>?>(nil)
        future.whenComplete { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
