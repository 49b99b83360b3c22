import Foundation
import HearthCore
import Logging
import Testing

@testable import HearthDatabaseServer

/// The node's durable log: what it makes durable survives a crash, a record cut short is
/// dropped, segments go once the namespaces' tables hold their rows, and a namespace's rows that
/// never reached its tables are written there when the node starts again.
@Suite struct NodeLogTests {
    private let logger = Logger(label: "test")

    private func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hearth-nodelog-\(UUID().uuidString)").path
    }

    private func segments(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }.sorted()
    }

    @Test func concurrentAppendsAreAllReadBackInOrderAfterACrash() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = try NodeLog.open(directory: directory, logger: logger)
        // Three namespaces, each committing its batches in order, all at once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for namespace in ["a", "b", "c"] {
                group.addTask {
                    for batch in 0..<50 {
                        let first = Int64(batch * 2 + 1)
                        try await log.append(LogBatch(namespace: namespace, firstSequence: first, rows: ["\(namespace)\(first)", "x"]))
                    }
                }
            }
            try await group.waitForAll()
        }
        // Nothing checkpointed: closing keeps every segment, as a crash would.
        await log.close()
        let reopened = try NodeLog.open(directory: directory, logger: logger)
        for namespace in ["a", "b", "c"] {
            let batches = reopened.unfoldedBatches(of: namespace)
            let expected: [Int64] = (0..<50).map { Int64($0 * 2 + 1) }
            #expect(batches.map(\.firstSequence) == expected)
            let rowsAreRight = batches.allSatisfy { batch in batch.rows == ["\(namespace)\(batch.firstSequence)", "x"] }
            #expect(rowsAreRight)
        }
        #expect(Set(reopened.namespacesWithUnfoldedBatches) == ["a", "b", "c"])
        await reopened.close()
    }

    @Test func aRecordCutShortOrCorruptEndsTheLog() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = try NodeLog.open(directory: directory, logger: logger)
        try await log.append(LogBatch(namespace: "ns", firstSequence: 1, rows: ["one"]))
        try await log.append(LogBatch(namespace: "ns", firstSequence: 2, rows: ["two"]))
        await log.close()
        let path = directory + "/" + (try segments(in: directory)[0])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let whole = bytes
        // A crash in the middle of the second record: only the first was synced whole.
        bytes.removeLast(2)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var reopened = try NodeLog.open(directory: directory, logger: logger)
        #expect(reopened.unfoldedBatches(of: "ns") == [LogBatch(namespace: "ns", firstSequence: 1, rows: ["one"])])
        await reopened.close()
        // A flipped byte in the second record's row fails its checksum.
        bytes = whole
        bytes[bytes.count - 1] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        reopened = try NodeLog.open(directory: directory, logger: logger)
        #expect(reopened.unfoldedBatches(of: "ns").map(\.firstSequence) == [1])
        await reopened.close()
    }

    @Test func segmentsGoOnceEveryNamespaceHasCheckpointedPastThem() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = try NodeLog.open(directory: directory, logger: logger)
        let row = String(repeating: "r", count: NodeLog.segmentBytes / 4)
        // Five batches of a quarter segment each: the fifth begins a second segment.
        for sequence in 1...5 {
            try await log.append(LogBatch(namespace: sequence == 1 ? "other" : "ns", firstSequence: Int64(sequence), rows: [row]))
        }
        #expect(try segments(in: directory).count == 2)
        log.checkpointed("ns", through: 5)
        // `other` still needs the first segment.
        #expect(try segments(in: directory).count == 2)
        log.checkpointed("other", through: 1)
        #expect(try segments(in: directory).count == 1)
        // Everything is checkpointed: a clean close leaves no segment.
        await log.close()
        #expect(try segments(in: directory).isEmpty)
    }

    @Test func oneProcessAtATimeWritesALog() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = try NodeLog.open(directory: directory, logger: logger)
        #expect(throws: PersistenceError.self) { _ = try NodeLog.open(directory: directory, logger: logger) }
        await log.close()
        await (try NodeLog.open(directory: directory, logger: logger)).close()
    }

    /// The archive holds every byte the log synced, segment by segment; a segment leaves the log
    /// only once the archive holds it; a copy a crash left short is completed at the next open.
    @Test func theArchiveHoldsEverySegmentTheLogWrote() async throws {
        let directory = temporaryDirectory()
        let archiveDirectory = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: archiveDirectory, withIntermediateDirectories: true)
        defer {
            for path in [directory, archiveDirectory, directory + "-archive-id"] { try? FileManager.default.removeItem(atPath: path) }
        }
        func archived() throws -> [LogBatch] {
            try segments(in: archiveDirectory).flatMap { name in
                NodeLogRecord.decodeAll([UInt8](try Data(contentsOf: URL(fileURLWithPath: archiveDirectory + "/" + name)))).batches
            }
        }
        let log = try NodeLog.open(
            directory: directory,
            archive: try LogArchive(directory: archiveDirectory, recordedIdentity: directory + "-archive-id", logger: logger),
            logger: logger)
        // Rows of 1 MB, so that the batches span several segments.
        let row = String(repeating: "r", count: 1 << 20)
        for sequence in 1...40 { try await log.append(LogBatch(namespace: "ns", firstSequence: Int64(sequence), rows: [row])) }
        log.checkpointed("ns", through: 40)
        await log.close()
        #expect(try segments(in: directory).isEmpty)
        #expect(try segments(in: archiveDirectory).count >= 3)
        #expect(try archived().map(\.firstSequence) == Array(1...40))

        // A crash before the archive's last write: the log keeps its segment (nothing
        // checkpointed), the archive's copy of it is cut short.
        let crashed = try NodeLog.open(
            directory: directory,
            archive: try LogArchive(directory: archiveDirectory, recordedIdentity: directory + "-archive-id", logger: logger),
            logger: logger)
        try await crashed.append(LogBatch(namespace: "ns", firstSequence: 41, rows: ["a", "b"]))
        try await crashed.append(LogBatch(namespace: "ns", firstSequence: 43, rows: ["c"]))
        await crashed.close()
        let last = try #require(try segments(in: archiveDirectory).last)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: archiveDirectory + "/" + last))
        try handle.truncate(atOffset: 10)
        try handle.close()
        let reopened = try NodeLog.open(
            directory: directory,
            archive: try LogArchive(directory: archiveDirectory, recordedIdentity: directory + "-archive-id", logger: logger),
            logger: logger)
        #expect(try archived().map(\.firstSequence) == Array(1...41) + [43])
        reopened.checkpointed("ns", through: 43)
        await reopened.close()
        #expect(try segments(in: directory).isEmpty)
    }

    /// An archive holds one history: it must exist, one process writes it at a time, and neither
    /// another data directory nor an empty directory where it should be is taken for it.
    @Test func anArchiveHoldsTheHistoryOfOneDataDirectory() async throws {
        let root = temporaryDirectory()
        let archive = root + "/archive"
        defer { try? FileManager.default.removeItem(atPath: root) }
        func open(_ recorded: String) throws -> LogArchive {
            try LogArchive(directory: archive, recordedIdentity: root + "/" + recorded, logger: logger)
        }
        #expect(throws: PersistenceError.self) { _ = try open("first") }  // it does not exist
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: true)
        let first = try open("first")
        #expect(throws: PersistenceError.self) { _ = try open("first") }  // locked
        let log = try NodeLog.open(directory: root + "/log", archive: first, logger: logger)
        try await log.append(LogBatch(namespace: "ns", firstSequence: 1, rows: ["a"]))
        await log.close()
        #expect(throws: PersistenceError.self) { _ = try open("second") }  // another history
        await (try open("first")).close()
        // The archive's disk not mounted: an empty directory where it should be.
        try FileManager.default.removeItem(atPath: archive)
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: true)
        #expect(throws: PersistenceError.self) { _ = try open("first") }
    }

    /// Rows durable in the log but not in the namespace's tables — a crash after the log's sync,
    /// before the tables were written — are written there when the node starts again; rows the
    /// tables already hold are not written twice.
    @Test func rowsTheTablesNeverGotAreWrittenThereAtTheNextStart() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = NamespaceFiles(dataDirectory: directory)
        // Two writes that reached the tables.
        let opened = try await TestNamespace.open(directory, logger: logger)
        _ = try await opened.engine.set(DatabasePath("a"), .number(.int(1)), as: .admin)
        _ = try await opened.engine.set(DatabasePath("b"), .string("kept"), as: .admin)
        await opened.close()
        // Then the log alone got writes 2 (again) to 4: the tables never did.
        let log = try NodeLog.open(directory: files.logDirectory, logger: logger)
        try await log.append(LogBatch(namespace: "ns", firstSequence: 2, rows: [try loggedRow("b", #""kept""#), try loggedRow("c", "3")]))
        try await log.append(LogBatch(namespace: "ns", firstSequence: 4, rows: [try loggedRow("a", #"{"deep":true}"#)]))
        try await log.append(LogBatch(namespace: "gone", firstSequence: 1, rows: [try loggedRow("x", "1")]))
        await log.close()
        #expect(try segments(in: files.logDirectory).count == 1)

        let service = DatabaseService(dataDirectory: directory, logger: logger)
        let engine = try await service.namespace("ns")
        #expect(JSONWriter.string(await engine.read()) == #"{"a":{"deep":true},"b":"kept","c":3}"#)
        #expect(try await engine.history(at: .root).entries.map(\.sequence) == [4, 3, 2, 1])
        // Numbering goes on after the rows recovered; a namespace deleted since stays deleted.
        _ = try await engine.set(DatabasePath("d"), .bool(true), as: .admin)
        #expect(try await engine.history(at: .root, limit: 1).entries.map(\.sequence) == [5])
        #expect(!files.exists("gone"))
        await service.close()
        #expect(try segments(in: files.logDirectory).isEmpty)
    }
}

/// The log row of an admin's write of `json` at `path`, as a namespace's store appends it.
func loggedRow(_ path: String, _ json: String) throws -> String {
    let node = try NodeBuilder(timestamp: 0).build(JSONParser.parse(json), at: DatabasePath(path), existing: .null)
    let write = LoggedWrite(
        time: NamespaceEngine.now(), caller: .admin, transport: .server,
        changes: [LoggedWrite.Change(path: try DatabasePath(path), before: nil, after: node)])
    return WriteLog.rows(of: [write], maximumAfterBytes: 1 << 20).rows[0].text
}
