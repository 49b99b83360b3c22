import Foundation
import HearthCore
import Logging
import SQLiteNIO
import Testing

@testable import HearthDatabaseServer

/// A subtree read straight from a store's file, as reads are served while a namespace loads:
/// the same as the loaded tree holds, journal rows included.
@Suite struct SubtreeReaderTests {
    private let logger = Logger(label: "test")

    @Test func aSubtreeReadFromTheFileIsTheOneTheTreeHolds() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-reader-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = NamespaceFiles(dataDirectory: directory)
        // A compaction every four writes: some rows are folded into the leaf rows, some not.
        let options = NamespaceStoreOptions(journalLimits: JournalLedger(maximumEntries: 4))
        let opened = try await TestNamespace.open(directory, options: options, logger: logger)
        let engine = opened.engine
        let writes: [(String, String)] = [
            ("a", #"{"b":{"c":1,"d":"x"},"e":{".value":2,".priority":"p"}}"#), ("a/b/c", "5"), ("f", "[1,2,3]"),
            ("a/.priority", "4"), ("g/h", "true"), ("a/b", "null"), ("f/1", #"{"deep":{"er":"yes"}}"#),
        ]
        let reader = try await SubtreeReader.open(path: files.path(of: "ns"), logger: logger)
        for (index, (path, json)) in writes.enumerated() {
            _ = try await engine.set(DatabasePath(writeLocation: path), JSONParser.parse(json), as: .admin)
            // A namespace is read from its file only while it loads, when no write goes on.
            try await opened.store.flush()
            for location in ["", "a", "a/b", "a/e", "f", "f/1/deep", "g", "missing"] {
                let path = try DatabasePath(location)
                let read = try await reader.read(path)
                #expect(
                    read.map { JSONWriter.string($0, .export) } == JSONWriter.string(await engine.read(path), .export),
                    "\(location) after write \(index + 1)")
            }
        }
        await reader.close()
        await opened.close()
    }

    @Test func aLargeSubtreeIsLeftToTheLoad() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-reader-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let service = DatabaseService(dataDirectory: directory, logger: logger)
        let big = JSONValue.object((0...SubtreeReader.maximumRows).map { JSONMember(key: "k\($0)", value: .number(.int(Int64($0)))) })
        _ = try await service.namespace("ns").set(DatabasePath("big"), big, as: .admin)
        await service.close()
        // Loading folds the journal into the leaf rows.
        let reopened = DatabaseService(dataDirectory: directory, logger: logger)
        _ = try await reopened.namespace("ns")
        await reopened.close()
        let reader = try await SubtreeReader.open(path: NamespaceFiles(dataDirectory: directory).path(of: "ns"), logger: logger)
        #expect(try await reader.read(DatabasePath("big")) == nil)
        #expect(try await reader.read(DatabasePath("big/k7")) == .value(.number(.int(7))))
        await reader.close()
    }
}
