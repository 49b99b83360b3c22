import HearthCore
import Logging
import NIOCore
import SQLiteNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The archived changes that take a restored backup's SQLite stores (accounts, Storage's
/// metadata, the console's administrators) to a moment: for each store, the changes the log
/// archive holds after the last one the backup's copy holds, in order, up to the last made at or
/// before the moment. ``plan(backup:archive:until:logger:)`` reads everything and refuses a moment
/// the archive cannot reach before anything is written; ``apply(to:logger:)`` then writes them,
/// with the bytes of the objects they name, into the restored data directory.
public struct StoreChangeReplay: Sendable {
    /// Why the stores cannot be taken to a moment.
    public enum Failure: Error, CustomStringConvertible {
        /// Changes after the backup's are missing from the archive.
        case missingChanges(store: String, from: Int64)
        /// An object's bytes that a change names are missing from the archive.
        case missingBlob(store: String, id: String)
        /// The backup's copy of a store was taken before the store recorded its changes.
        case notRecording(store: String)
        /// The backup or the archive cannot be read, or the restored store written.
        case unreadable(String)

        public var description: String {
            switch self {
            case .missingChanges(let store, let from):
                "the log archive lacks the changes of \(store) from number \(from) on: it cannot take the store past them"
            case .missingBlob(let store, let id): "the log archive lacks the bytes of object \(id) that a change of \(store) names"
            case .notRecording(let store):
                "the backup was taken before \(store) recorded its changes for the log archive: restore a backup taken since"
            case .unreadable(let reason): reason
            }
        }
    }

    struct StorePlan: Sendable {
        let store: String
        let entries: [StoreChangeArchive.Entry]
    }

    let plans: [StorePlan]
    let archive: StoreChangeArchive
    /// Stores the archive holds changes of that the backup does not have (created after it):
    /// they are not restored.
    public let absentStores: [String]

    /// The changes replayed, all stores together.
    public var changes: Int { plans.reduce(0) { $0 + $1.entries.count } }
    /// The time of the last change replayed, if any.
    public var lastChange: Int64? { plans.compactMap { $0.entries.last?.time }.max() }

    public static func plan(backup: String, archive directory: String, until: Int64, logger: Logger) async throws(Failure)
        -> StoreChangeReplay
    {
        let archive = StoreChangeArchive(directory: directory)
        var plans: [StorePlan] = []
        var absent: [String] = []
        for store in DataDirectoryLayout.fixedStores {
            let archived: [StoreChangeArchive.Entry]
            do {
                archived = try archive.entries(of: store)
            } catch {
                throw .unreadable("\(error)")
            }
            guard FileManager.default.fileExists(atPath: backup + "/" + store) else {
                if archived.contains(where: { $0.time <= until }) { absent.append(store) }
                continue
            }
            let held: Int64?
            do {
                let connection = try await SQLiteConnection.open(storage: .file(path: backup + "/" + store), logger: logger)
                do {
                    held = try await StoreChangeLog.hasTable(on: connection) ? try await StoreChangeLog.lastNumbered(on: connection) : nil
                } catch {
                    try? await connection.close()
                    throw error
                }
                try await connection.close()
            } catch {
                throw .unreadable("cannot read \(backup)/\(store): \(error)")
            }
            let later = archived.filter { $0.seq > held ?? 0 }
            guard let held else {
                if !later.isEmpty { throw .notRecording(store: store) }
                continue
            }
            var entries: [StoreChangeArchive.Entry] = []
            for entry in later {
                let expected = held + Int64(entries.count) + 1
                guard entry.seq == expected else { throw .missingChanges(store: store, from: expected) }
                guard entry.time <= until else { break }
                entries.append(entry)
            }
            for id in Self.liveBlobs(after: entries) where !FileManager.default.fileExists(atPath: archive.blob(id)) {
                guard FileManager.default.fileExists(atPath: backup + "/" + DataDirectoryLayout.blob(id)) else {
                    throw .missingBlob(store: store, id: id)
                }
            }
            plans.append(StorePlan(store: store, entries: entries))
        }
        return StoreChangeReplay(plans: plans, archive: archive, absentStores: absent)
    }

    /// Applies the planned changes to the stores of `dataDirectory` (a backup just restored),
    /// each store's in one transaction, and copies the bytes of the objects they name; the
    /// stores then record no changes until a server that archives starts on them.
    public func apply(to dataDirectory: String, logger: Logger) async throws(Failure) {
        for plan in plans {
            let path = dataDirectory + "/" + plan.store
            do {
                for id in Self.liveBlobs(after: plan.entries) {
                    let target = dataDirectory + "/" + DataDirectoryLayout.blob(id)
                    guard !FileManager.default.fileExists(atPath: target), FileManager.default.fileExists(atPath: archive.blob(id)) else {
                        continue
                    }
                    try DurableFiles.createDirectory(parentDirectory(of: target))
                    _ = try DurableFiles.copy(archive.blob(id), to: target)
                    try DurableFiles.syncDirectory(parentDirectory(of: target))
                    try DurableFiles.syncDirectory(parentDirectory(of: parentDirectory(of: target)))
                }
                let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
                do {
                    try await StoreChangeLog.uninstall(on: connection)
                    _ = try await connection.query("PRAGMA foreign_keys = OFF")
                    try await StoreChangeLog.transaction(on: connection) {
                        try await Self.withoutOwnTriggers(on: connection) {
                            for entry in plan.entries { try await Self.apply(entry.change, on: connection) }
                        }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try await connection.close()
            } catch let error as Failure {
                throw error
            } catch {
                throw .unreadable("cannot replay the changes of \(path): \(error)")
            }
        }
    }

    /// Runs `body` with the store's own triggers dropped, then makes them again: what they wrote
    /// when the changes were made is among the changes recorded (the ads store's counts), and
    /// must not be written twice.
    static func withoutOwnTriggers(on connection: SQLiteConnection, _ body: () async throws -> Void) async throws {
        let triggers = try await connection.query(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY rowid"
        ).compactMap { row -> (name: String, sql: String)? in
            guard let name = row.column("name")?.string, let sql = row.column("sql")?.string else { return nil }
            return (name, sql)
        }
        for trigger in triggers { _ = try await connection.query("DROP TRIGGER \(StoreChangeLog.identifier(trigger.name))") }
        try await body()
        for trigger in triggers { _ = try await connection.query(trigger.sql) }
    }

    /// Writes one change.
    static func apply(_ change: JSONValue, on connection: SQLiteConnection) async throws {
        guard case .string(let table)? = change["table"] else { throw Failure.unreadable("a change names no table: \(change)") }
        if case .object(let row)? = change["upsert"] {
            let columns = row.map { StoreChangeLog.identifier($0.key) }.joined(separator: ", ")
            let marks = Array(repeating: "?", count: row.count).joined(separator: ", ")
            _ = try await connection.query(
                "INSERT OR REPLACE INTO \(StoreChangeLog.identifier(table)) (\(columns)) VALUES (\(marks))",
                try row.map { try value($0.value) })
        } else if case .object(let key)? = change["delete"] {
            let condition = key.map { "\(StoreChangeLog.identifier($0.key)) IS ?" }.joined(separator: " AND ")
            _ = try await connection.query(
                "DELETE FROM \(StoreChangeLog.identifier(table)) WHERE \(condition)", try key.map { try value($0.value) })
        } else {
            throw Failure.unreadable("a change is neither an upsert nor a delete: \(change)")
        }
    }

    /// A value in its typed JSON form (``StoreChangeLog``).
    static func value(_ typed: JSONValue) throws -> SQLiteData {
        guard case .array(let pair) = typed, pair.count == 2, case .string(let type) = pair[0] else {
            throw Failure.unreadable("a value is not [type, value]: \(typed)")
        }
        switch (type, pair[1]) {
        case ("null", _): return .null
        case ("integer", .number(.int(let number))): return .integer(Int(number))
        case ("real", .number(let number)): return .float(number.doubleValue)
        case ("text", .string(let text)): return .text(text)
        case ("blob", .string(let hex)):
            guard let bytes = Hex.decode(hex) else { throw Failure.unreadable("a blob is not hexadecimal") }
            return .blob(ByteBuffer(bytes: bytes))
        default: throw Failure.unreadable("a value does not match its type: \(typed)")
        }
    }

    /// The blobs of the objects that `entries`, applied in order, leave written by them: an
    /// object they write and then replace or delete needs no bytes (Storage deletes them when
    /// the object goes, possibly before they are archived).
    static func liveBlobs(after entries: [StoreChangeArchive.Entry]) -> Set<String> {
        var blobs: [String: String] = [:]
        for entry in entries where entry.change["table"] == .string("objects") {
            if let id = objectBlob(entry), let row = entry.change["upsert"] {
                blobs[objectKey(row)] = id
            } else if let key = entry.change["delete"] {
                blobs[objectKey(key)] = nil
            }
        }
        return Set(blobs.values)
    }

    /// An object's key (bucket and name) in a change's row or key.
    private static func objectKey(_ columns: JSONValue) -> String {
        JSONWriter.string(.array([columns["bucket"] ?? .null, columns["name"] ?? .null]))
    }

    /// The blob a change of Storage's objects writes, if it is one.
    static func objectBlob(_ entry: StoreChangeArchive.Entry) -> String? {
        guard entry.change["table"] == .string("objects"), case .array(let value)? = entry.change["upsert"]?["blob"], value.count == 2,
            case .string(let id) = value[1]
        else { return nil }
        return id
    }
}
