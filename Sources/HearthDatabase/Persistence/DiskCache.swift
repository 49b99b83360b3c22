import Foundation
import GRDB
import HearthCore
import Logging

/// The on-disk copy of one database's pending writes and cached server data, kept when
/// `isPersistenceEnabled` is on (spec §17.11), in one SQLite file per app and database.
///
/// Server data is stored per *location*: a place the client listened to and received whole,
/// one row per child (or one row for a leaf), so that a change below the location rewrites one
/// row. All calls come from the repo's worker queue.
final class DiskCache {
    /// A write the app made that the server had not acknowledged when it was stored.
    struct StoredWrite {
        enum Kind: String {
            case overwrite = "o"
            case merge = "m"
        }

        let id: Int
        let path: DatabasePath
        let kind: Kind
        let json: JSONValue
    }

    private let store: DatabaseQueue
    private let maximumBytes: Int
    private let logger: Logger
    private var updatesSincePrune = 0
    /// The stored locations, as the `locations` table lists them: read once at opening, then
    /// kept in step with every change, so lookups on the hot path cost no query.
    private var locations: Set<DatabasePath> = []
    /// How many server-cache updates pass between two size checks.
    static let pruneInterval = 1000

    /// Opens (creating if needed) the cache at `file`.
    init(file: String, maximumBytes: Int, logger: Logger) throws {
        self.logger = logger
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.label = "hearth.database.cache"
        store = try DatabaseQueue(path: file, configuration: configuration)
        self.maximumBytes = maximumBytes
        try store.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS writes (id INTEGER PRIMARY KEY, path TEXT NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS locations (path TEXT PRIMARY KEY, last_use REAL NOT NULL);
                    CREATE TABLE IF NOT EXISTS server_cache (location TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (location, key));
                    """)
        }
        let stored = try store.read { try String.fetchAll($0, sql: "SELECT path FROM locations") }
        locations = Set(stored.compactMap { try? DatabasePath(writeLocation: $0) })
    }

    // MARK: Writes

    func saveWrite(_ write: StoredWrite) {
        attempt {
            try store.write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO writes (id, path, kind, data) VALUES (?, ?, ?, ?)",
                    arguments: [write.id, write.path.description, write.kind.rawValue, JSONWriter.string(write.json)])
            }
        }
    }

    func removeWrite(id: Int) {
        attempt { try store.write { try $0.execute(sql: "DELETE FROM writes WHERE id = ?", arguments: [id]) } }
    }

    func removeAllWrites() {
        attempt { try store.write { try $0.execute(sql: "DELETE FROM writes") } }
    }

    /// The stored writes in the order they were made.
    func loadWrites() -> [StoredWrite] {
        let rows = (try? store.read { try Row.fetchAll($0, sql: "SELECT id, path, kind, data FROM writes ORDER BY id") }) ?? []
        return rows.compactMap { row in
            guard let kind = StoredWrite.Kind(rawValue: row["kind"]), let path = try? DatabasePath(writeLocation: row["path"]),
                let json = try? JSONParser.parse(row["data"] as String)
            else { return nil }
            return StoredWrite(id: row["id"], path: path, kind: kind, json: json)
        }
    }

    // MARK: Server data

    /// Stores the whole value of `location`, replacing what was stored there, below it, or in
    /// a stored location above it (which is dropped: it would no longer be whole).
    func storeLocation(_ location: DatabasePath, _ node: Node) {
        let overlapping = locations.filter { $0.contains(location) || location.contains($0) }
        attempt {
            try store.write { db in
                for other in overlapping { try Self.delete(other, in: db) }
                try db.execute(
                    sql: "INSERT INTO locations (path, last_use) VALUES (?, ?)",
                    arguments: [location.description, Date().timeIntervalSince1970])
                for (key, data) in Self.rows(of: node) {
                    try db.execute(
                        sql: "INSERT INTO server_cache (location, key, data) VALUES (?, ?, ?)",
                        arguments: [location.description, key, data])
                }
            }
            locations.subtract(overlapping)
            locations.insert(location)
        }
        notePruneCandidate()
    }

    /// Stores the new value of the child `key` of a stored `location`.
    func storeChild(_ key: ChildKey, of location: DatabasePath, _ node: Node) {
        guard locations.contains(location) else { return }
        attempt {
            try store.write { db in
                try db.execute(
                    sql: "DELETE FROM server_cache WHERE location = ? AND key = ''", arguments: [location.description])
                if node.isNull {
                    try db.execute(
                        sql: "DELETE FROM server_cache WHERE location = ? AND key = ?",
                        arguments: [location.description, key.string])
                } else {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO server_cache (location, key, data) VALUES (?, ?, ?)",
                        arguments: [location.description, key.string, JSONWriter.string(node, .export)])
                }
            }
        }
        notePruneCandidate()
    }

    /// The stored value at `path`, when a stored location at or above it holds it whole.
    func node(at path: DatabasePath) -> Node? {
        guard let location = locations.filter({ $0.contains(path) }).min(by: { $0.count < $1.count }) else { return nil }
        return try? store.write { db -> Node in
            try db.execute(
                sql: "UPDATE locations SET last_use = ? WHERE path = ?",
                arguments: [Date().timeIntervalSince1970, location.description])
            let relative = location.relativePath(to: path)!
            let rows: [Row]
            if let first = relative.keys.first {
                rows = try Row.fetchAll(
                    db, sql: "SELECT key, data FROM server_cache WHERE location = ? AND key IN ('', ?)",
                    arguments: [location.description, first.string])
            } else {
                rows = try Row.fetchAll(
                    db, sql: "SELECT key, data FROM server_cache WHERE location = ?", arguments: [location.description])
            }
            return Self.node(from: rows).child(at: relative)
        }
    }

    /// The stored locations directly below `path`, each held whole: children known complete.
    func completeChildren(of path: DatabasePath) -> [ChildKey] {
        locations.compactMap { $0.count == path.count + 1 && path.contains($0) ? $0.keys.last : nil }
    }

    /// Deletes a stored location and its rows.
    private static func delete(_ location: DatabasePath, in db: GRDB.Database) throws {
        try db.execute(sql: "DELETE FROM locations WHERE path = ?", arguments: [location.description])
        try db.execute(sql: "DELETE FROM server_cache WHERE location = ?", arguments: [location.description])
    }

    /// A node as rows: one per child (and `.priority`), or one row with key `""` for a leaf.
    private static func rows(of node: Node) -> [(String, String)] {
        switch node {
        case .null: return []
        case .leaf: return [("", JSONWriter.string(node, .export))]
        case .object(let children, let priority):
            var rows = children.map { ($0.key.string, JSONWriter.string($0.value, .export)) }
            if let priority { rows.append((".priority", JSONWriter.string(Node.value(priority.leafValue), .export))) }
            return rows
        }
    }

    private static func node(from rows: [Row]) -> Node {
        var children: [(ChildKey, Node)] = []
        var priority: Priority?
        for row in rows {
            let key: String = row["key"]
            guard let json = try? JSONParser.parse(row["data"] as String), let node = try? Node.fromServer(json) else { continue }
            switch key {
            case "": return node
            case ".priority": priority = Priority(node)
            default: children.append((ChildKey(key), node))
            }
        }
        return Node.build(children: children, priority: priority)
    }

    // MARK: Size

    /// Every `pruneInterval` updates, drops the least recently used locations (other than the
    /// `active` ones) while the cache is larger than its bound.
    func pruneIfNeeded(keeping active: [DatabasePath]) {
        guard updatesSincePrune >= Self.pruneInterval else { return }
        updatesSincePrune = 0
        attempt {
            let dropped = try store.write { db -> [DatabasePath] in
                var size = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(LENGTH(data)), 0) FROM server_cache") ?? 0
                var dropped: [DatabasePath] = []
                let byLastUse = try String.fetchAll(db, sql: "SELECT path FROM locations ORDER BY last_use")
                for text in byLastUse where size > maximumBytes {
                    guard let path = try? DatabasePath(writeLocation: text),
                        !active.contains(where: { $0.contains(path) || path.contains($0) })
                    else { continue }
                    let bytes =
                        try Int.fetchOne(
                            db, sql: "SELECT COALESCE(SUM(LENGTH(data)), 0) FROM server_cache WHERE location = ?", arguments: [text])
                        ?? 0
                    try Self.delete(path, in: db)
                    dropped.append(path)
                    size -= bytes
                }
                return dropped
            }
            locations.subtract(dropped)
        }
    }

    private func notePruneCandidate() {
        updatesSincePrune += 1
    }

    /// A cache that cannot be written is a cache that is missing data, never an app failure.
    private func attempt(_ body: () throws -> Void) {
        do { try body() } catch { logger.warning("The database's disk cache could not be updated: \(error)") }
    }
}
