import HearthCore
import Logging
import SQLiteNIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The durable log that takes a restored backup's namespaces to a moment: the writes the backup's
/// own log holds and those of the log archive (`--log-archive`), merged, each namespace's in order
/// and once, up to the last write applied at or before the moment. Written into the restored data
/// directory, a server started on it replays them as after a crash.
///
/// ``plan(backup:archive:until:logger:)`` reads everything and refuses a moment the archive cannot
/// reach, before anything is written; ``apply(to:logger:)`` then writes the log and creates the
/// namespaces the backup did not have yet.
public struct PointInTimeLog: Sendable {
    /// The moment, in milliseconds since 1970.
    public let until: Int64
    /// The writes replayed, all namespaces together.
    public let writes: Int
    /// The time of the last write replayed, if any.
    public let lastWrite: Int64?
    /// The time of the last write the backup's log and the archive hold: a moment past it
    /// restores everything they hold.
    public let archiveEnds: Int64?
    private let batches: [LogBatch]
    /// Namespaces with writes to replay and no file in the backup.
    private let newNamespaces: [String]

    /// Why a moment cannot be restored.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unreadable(String)
        /// Writes between the backup and the moment are missing from the archive.
        case gap(namespace: String, missing: ClosedRange<Int64>)
        /// Segments of the log between the backup and the archive's end are missing from it.
        case missingSegments(ClosedRange<Int>)
        /// The backup was not taken while its data directory archived into this archive.
        case anotherHistory(archive: String)

        public var description: String {
            switch self {
            case .unreadable(let message): message
            case .gap(let namespace, let missing):
                "the log archive lacks writes \(missing.lowerBound) to \(missing.upperBound) of namespace \(namespace): "
                    + "it does not reach back to this backup (archiving began later, or segments were removed); nothing was written"
            case .missingSegments(let missing):
                "the log archive lacks segments \(missing.lowerBound) to \(missing.upperBound) of the log after this backup "
                    + "(they were removed from it); nothing was written"
            case .anotherHistory(let archive):
                "this backup was not taken while its data directory archived its log into \(archive) (archiving began "
                    + "later, or the archive is another data directory's); nothing was written"
            }
        }
    }

    /// Reads the backup in `backup` (its namespaces' files and log) and the archive, and works out
    /// the writes to replay up to `until` (ms since 1970). `archiveID` is the archive the backup's
    /// data directory archived into when it was taken (its manifest says), if any: the archive
    /// must be that one, and hold every segment of the log from the backup's on.
    public static func plan(
        backup: String, archive: String, archiveID: String?, until: Int64, logger: Logger
    ) async throws(Failure) -> PointInTimeLog {
        let backupFiles = NamespaceFiles(dataDirectory: backup)
        guard let archiveID, LogArchiveIdentity.read(archive + "/" + LogArchiveIdentity.fileName) == archiveID else {
            throw .anotherHistory(archive: archive)
        }
        try checkSegments(of: backupFiles.logDirectory, against: archive)
        var byNamespace: [String: [LogBatch]] = [:]
        for directory in [backupFiles.logDirectory, archive] {
            for batch in try readSegments(in: directory) { byNamespace[batch.namespace, default: []].append(batch) }
        }
        var kept: [LogBatch] = []
        var newNamespaces: [String] = []
        var lastWrite: Int64?
        var archiveEnds: Int64?
        for (namespace, batches) in byNamespace.sorted(by: { $0.key < $1.key }) {
            guard NamespaceFiles.isValidName(namespace) else { throw .unreadable("the log names a namespace \(namespace)") }
            let exists = backupFiles.exists(namespace)
            var next = try await exists ? writtenThrough(backupFiles.path(of: namespace), logger: logger) + 1 : 1
            var rows: [String] = []
            var firstSequence: Int64?
            var cut = false
            for batch in batches.sorted(by: { $0.firstSequence < $1.firstSequence }) where batch.lastSequence >= next {
                // Past the moment, nothing more is replayed: a gap there costs nothing.
                if !cut, batch.firstSequence > next { throw .gap(namespace: namespace, missing: next...(batch.firstSequence - 1)) }
                for (offset, text) in batch.rows.enumerated() where batch.firstSequence + Int64(offset) >= next {
                    let time = try Self.time(of: text)
                    archiveEnds = max(archiveEnds ?? time, time)
                    guard !cut, time <= until else {
                        cut = true
                        continue
                    }
                    firstSequence = firstSequence ?? batch.firstSequence + Int64(offset)
                    rows.append(text)
                    lastWrite = max(lastWrite ?? time, time)
                }
                next = batch.lastSequence + 1
            }
            guard let firstSequence, !rows.isEmpty else { continue }
            kept.append(LogBatch(namespace: namespace, firstSequence: firstSequence, rows: rows))
            if !exists { newNamespaces.append(namespace) }
        }
        return PointInTimeLog(
            until: until, writes: kept.reduce(0) { $0 + $1.rows.count }, lastWrite: lastWrite, archiveEnds: archiveEnds,
            batches: kept, newNamespaces: newNamespaces)
    }

    /// Replaces the log of the data directory `dataDirectory` (a backup just restored) with the
    /// planned writes, and creates the namespaces they need.
    public func apply(to dataDirectory: String, logger: Logger) async throws(Failure) {
        let files = NamespaceFiles(dataDirectory: dataDirectory)
        do {
            try files.createDirectory()
            for namespace in newNamespaces { try await NamespaceStore.create(path: files.path(of: namespace), logger: logger) }
            let fileManager = FileManager.default
            try fileManager.createDirectory(atPath: files.logDirectory, withIntermediateDirectories: true)
            for name in try fileManager.contentsOfDirectory(atPath: files.logDirectory) where name.hasSuffix(".log") {
                try fileManager.removeItem(atPath: files.logDirectory + "/" + name)
            }
            var bytes: [UInt8] = []
            for batch in batches.flatMap(Self.bounded) { NodeLogRecord.encode(batch, into: &bytes) }
            let path = NodeLog.path(of: 1, in: files.logDirectory)
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw Failure.unreadable("cannot create \(path): \(LogFiles.errorText())") }
            defer { Glibc.close(descriptor) }
            try LogFiles.write(bytes, to: descriptor, what: path)
            guard fsync(descriptor) == 0 else { throw Failure.unreadable("cannot sync \(path)") }
            try Self.sync(files.logDirectory)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .unreadable("cannot write the log of \(dataDirectory): \(error)")
        }
    }

    /// The most bytes of rows one record of the replayed log holds (a reader refuses records
    /// past 1 GiB).
    private static let recordBytes = 64 << 20

    /// `batch` in batches of at most ``recordBytes`` of rows each (or one row, when larger).
    private static func bounded(_ batch: LogBatch) -> [LogBatch] {
        var parts: [LogBatch] = []
        var first = batch.firstSequence
        var rows: [String] = []
        var bytes = 0
        for row in batch.rows {
            if !rows.isEmpty, bytes + row.utf8.count > recordBytes {
                parts.append(LogBatch(namespace: batch.namespace, firstSequence: first, rows: rows))
                first += Int64(rows.count)
                rows = []
                bytes = 0
            }
            rows.append(row)
            bytes += row.utf8.count
        }
        if !rows.isEmpty { parts.append(LogBatch(namespace: batch.namespace, firstSequence: first, rows: rows)) }
        return parts
    }

    /// Refuses an archive that lacks a segment of the log from the backup's last on.
    private static func checkSegments(of backupLog: String, against archive: String) throws(Failure) {
        func numbers(_ directory: String) -> [Int] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap(NodeLog.segmentNumber).sorted()
        }
        let archived = numbers(archive)
        guard let last = archived.last else { return }
        let start = numbers(backupLog).last ?? archived[0]
        let held = Set(archived)
        if let missing = (start...max(start, last)).first(where: { !held.contains($0) }) {
            throw .missingSegments(missing...((start...last).last { !held.contains($0) } ?? missing))
        }
    }

    /// Every batch of the segments in `directory`, oldest segment first; each segment's reading
    /// stops at its first record cut short.
    private static func readSegments(in directory: String) throws(Failure) -> [LogBatch] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }.sorted()
        } catch {
            if !FileManager.default.fileExists(atPath: directory) { return [] }
            throw .unreadable("cannot read \(directory): \(error)")
        }
        var batches: [LogBatch] = []
        for name in names {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
                throw .unreadable("cannot read \(directory)/\(name)")
            }
            batches += NodeLogRecord.decodeAll([UInt8](data)).batches
        }
        return batches
    }

    /// The last sequence number the namespace's file at `path` holds (its log rows, or those
    /// folded and deleted).
    private static func writtenThrough(_ path: String, logger: Logger) async throws(Failure) -> Int64 {
        do {
            let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            defer { Task { try? await connection.close() } }
            let logged = try await connection.query("SELECT max(sequence) AS last FROM log").first?.column("last")?.integer ?? 0
            let folded = try await connection.query(
                "SELECT value FROM settings WHERE name = ?1", [.text(NamespaceStore.foldedSetting)]
            ).first?.column("value")?.string.flatMap { Int64($0) }
            return max(Int64(logged), folded ?? 0)
        } catch {
            throw .unreadable("cannot read \(path): \(error)")
        }
    }

    /// A log row's time (its `t`).
    private static func time(of row: String) throws(Failure) -> Int64 {
        guard let time = WriteLog.time(ofRow: row) else { throw .unreadable("a row of the log has no time: \(row.prefix(80))") }
        return time
    }

    private static func sync(_ path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        defer { if descriptor >= 0 { Glibc.close(descriptor) } }
        guard descriptor >= 0, fsync(descriptor) == 0 else { throw .unreadable("cannot sync \(path)") }
    }
}
