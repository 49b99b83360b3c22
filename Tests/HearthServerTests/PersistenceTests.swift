import Foundation
import HearthCore
import Logging
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// What is acknowledged is on disk, and a restart restores exactly the tree that was written.
@Suite struct PersistenceTests {
    private func withService<Value>(
        _ directory: String, storeOptions: NamespaceStoreOptions = .init(), _ body: (DatabaseService) async throws -> Value
    ) async throws -> Value {
        let service = DatabaseService(dataDirectory: directory, storeOptions: storeOptions, logger: Logger(label: "test"))
        await service.preload([])
        do {
            let value = try await body(service)
            await service.close()
            return value
        } catch {
            await service.close()
            throw error
        }
    }

    private func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hearth-persist-\(UUID().uuidString)").path
    }

    @Test func randomWritesSurviveARestartExactly() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var generator = SystemRandomNumberGenerator()
        let keys = ["a", "b", "c", "1", "2"]
        func randomPath() -> String {
            (0..<Int.random(in: 0...3, using: &generator)).map { _ in keys.randomElement(using: &generator)! }.joined(separator: "/")
        }
        func randomValue(depth: Int = 0) -> String {
            switch Int.random(in: 0..<(depth > 1 ? 5 : 8), using: &generator) {
            case 0: return "null"
            case 1: return "\(Int.random(in: -5...5, using: &generator))"
            case 2: return "\"s\(Int.random(in: 0...3, using: &generator))\""
            case 3: return "true"
            case 4: return "{\".value\":1.5,\".priority\":\(Int.random(in: 0...3, using: &generator))}"
            case 5: return "{\".priority\":\"p\",\"x\":\(randomValue(depth: depth + 1))}"
            default:
                let members = keys.shuffled(using: &generator).prefix(2).map { "\"\($0)\":\(randomValue(depth: depth + 1))" }
                return "{" + members.joined(separator: ",") + "}"
            }
        }
        let expected = try await withService(directory) { service in
            let engine = try await service.namespace("random")
            for _ in 0..<400 {
                let path = try DatabasePath(randomPath())
                if Bool.random(using: &generator) {
                    _ = try await engine.set(path, JSONParser.parse(randomValue()), as: .admin)
                } else {
                    let first = try DatabasePath("a/" + randomPath())
                    let second = try DatabasePath("b/" + randomPath())
                    try await engine.update(
                        path, [(first, JSONParser.parse(randomValue())), (second, JSONParser.parse(randomValue()))], as: .admin)
                }
            }
            return await engine.read()
        }
        let restored = try await withService(directory) { service in
            try await service.namespace("random").read()
        }
        #expect(JSONWriter.string(restored, .export) == JSONWriter.string(expected, .export))
    }

    /// Leaf values that JSON writes in more than one way survive a compaction and a restart
    /// exactly: escapes, non-ASCII text, and numbers large, small and fractional.
    @Test func everyKindOfLeafValueSurvivesACompaction() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let value = #"""
            {"quote":"say \"hi\"","slash":"a\\b/c","lines":"one\ntwo\ttab","control":"\u0001\u007f",
             "text":"Grüße, 世界 🎉","big":1e300,"small":-2.5e-8,"fraction":0.1,"int":9007199254740991,
             "negative":-42,"yes":true,"no":false,"p":{".value":"v",".priority":1.5}}
            """#
        let written = try await withService(directory) { service in
            let engine = try await service.namespace("values")
            // Larger than the journal takes at once: the write goes straight into leaf rows.
            let filler = JSONValue.string(String(repeating: "x", count: 5 * 1024 * 1024))
            _ = try await engine.set(
                .root, .object([JSONMember(key: "values", value: try JSONParser.parse(value)), JSONMember(key: "filler", value: filler)]),
                as: .admin)
            return try await engine.read(DatabasePath("values"))
        }
        let restored = try await withService(directory) { service in
            try await service.namespace("values").read(DatabasePath("values"))
        }
        #expect(restored == written)
        #expect(JSONWriter.string(restored, .export) == JSONWriter.string(written, .export))
    }

    /// A store whose journal is compacted every few commits: for every prefix of a run of
    /// writes (so that each write is, once, the last before a restart, whether it was journaled
    /// or compacted), the tree restored from the leaf rows and the journal is the tree written.
    @Test(arguments: [
        JournalLedger(maximumEntries: 3), JournalLedger(maximumBytes: 120), JournalLedger(maximumLocations: 2),
    ])
    func compactionsKeepTheTreeExact(limits: JournalLedger) async throws {
        let writes: [(String, String)] = [
            ("a/b", #"{"c":1,"d":{".value":"x",".priority":2}}"#), ("a/b/c", "null"), ("a/.priority", "7"),
            ("e", #"{"f":[1,2,3]}"#), ("a/b/d", #""y""#), ("g/h/i", "true"), ("g", "null"), ("a/b", "5"),
            ("a/b/z", #"{"deep":{"er":1}}"#), ("", #"{"a":{"b":1},"k":{"l":"m"}}"#), ("k/l/n", "2"), ("k/.priority", #""p""#),
        ]
        let logger = Logger(label: "test")
        for count in 1...writes.count {
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            func open() async throws -> TestNamespace {
                try await TestNamespace.open(directory, options: .init(journalLimits: limits), logger: logger)
            }
            let opened = try await open()
            for (path, json) in writes.prefix(count) {
                _ = try await opened.engine.set(DatabasePath(writeLocation: path), JSONParser.parse(json), as: .admin)
            }
            let expected = JSONWriter.string(await opened.engine.read(), .export)
            await opened.close()
            let reopened = try await open()
            #expect(JSONWriter.string(await reopened.engine.read(), .export) == expected, "after \(count) writes")
            await reopened.close()
        }
    }

    /// A compaction cut short at any step — some of its locations rewritten from the tree as of
    /// its last journal row, or all of them with the journal rows not yet deleted, or done — with
    /// newer rows journaled meanwhile: the tree restored is the tree written.
    @Test(arguments: [0, 1, 2, 3])
    func anInterruptedCompactionLosesNothing(stepsDone: Int) async throws {
        let before: [(String, String)] = [
            ("a/b", #"{"c":1,"d":2}"#), ("e", #"{"f":[1,2]}"#), ("g/h", "true"), ("a/.priority", "3"), ("k", #""v""#),
        ]
        let after: [(String, String)] = [("a/b/c", "null"), ("e", "5"), ("g", #"{"x":{"y":1}}"#), ("n", "1")]
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let logger = Logger(label: "test")
        // Limits no test write reaches: compactions happen only as the test makes them.
        let limits = JournalLedger(maximumEntries: 1000)
        func open() async throws -> TestNamespace {
            try await TestNamespace.open(directory, options: .init(journalLimits: limits), logger: logger)
        }
        let opened = try await open()
        let (store, engine) = (opened.store, opened.engine)
        for (path, json) in before { _ = try await engine.set(DatabasePath(writeLocation: path), JSONParser.parse(json), as: .admin) }
        let snapshot = await engine.read()
        // Every location the journal rows up to here name lies under one of these.
        let roots = try ["a", "e", "g", "k"].map { try DatabasePath($0) }
        for (path, json) in after { _ = try await engine.set(DatabasePath(writeLocation: path), JSONParser.parse(json), as: .admin) }
        let expected = JSONWriter.string(await engine.read(), .export)
        let half = roots.count / 2
        func step(_ build: (inout CommitPlan) -> Void) async throws {
            var plan = CommitPlan()
            build(&plan)
            try await store.apply(plan)
        }
        if stepsDone >= 1 { try await step { $0.rewrite(Array(roots[..<half]), from: snapshot) } }
        if stepsDone >= 2 { try await step { $0.rewrite(Array(roots[half...]), from: snapshot) } }
        if stepsDone >= 3 { try await step { $0.fold(through: Int64(before.count), deletingThrough: Int64(before.count)) } }
        await opened.close()
        let reopened = try await open()
        #expect(JSONWriter.string(await reopened.engine.read(), .export) == expected)
        await reopened.close()
    }

    /// A write too large for the journal goes straight into the leaf rows, in chunks cut
    /// between children, with the journal's pending locations: a restart restores it exactly.
    @Test func aWriteTooLargeForTheJournalSurvivesARestartExactly() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func wide(_ count: Int, prefix: String) -> JSONValue {
            .object(
                (0..<count).map { index in
                    JSONMember(
                        key: "\(prefix)\(index)",
                        value: .object([
                            JSONMember(key: "text", value: .string(String(repeating: "t", count: 100))),
                            JSONMember(key: ".priority", value: .number(.int(Int64(index)))),
                        ]))
                } + [JSONMember(key: "nested", value: .object([JSONMember(key: "deep", value: wideLeaves(5_000))]))])
        }
        func wideLeaves(_ count: Int) -> JSONValue {
            .object((0..<count).map { JSONMember(key: "n\($0)", value: .number(.int(Int64($0)))) })
        }
        let written = try await withService(directory) { service in
            let engine = try await service.namespace("big")
            _ = try await engine.set(DatabasePath("big"), .string("a leaf first"), as: .admin)
            _ = try await engine.set(DatabasePath("pending/a"), .number(.int(1)), as: .admin)
            _ = try await engine.set(DatabasePath(writeLocation: "big/.priority"), .string("p"), as: .admin)
            _ = try await engine.set(DatabasePath("big"), wide(12_000, prefix: "c"), as: .admin)
            _ = try await engine.set(DatabasePath("pending/b"), .number(.int(2)), as: .admin)
            return JSONWriter.string(await engine.read(), .export)
        }
        let restored = try await withService(directory) { service in
            JSONWriter.string(try await service.namespace("big").read(), .export)
        }
        #expect(restored == written)
        #expect(written.contains("\"c11999\"") && written.contains("\"n4999\":4999") && written.contains("\"pending\":{\"a\":1,\"b\":2}"))
    }

    @Test func concurrentWritesShareCommitsAndAllSurvive() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withService(directory) { service in
            let engine = try await service.namespace("concurrent")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<300 {
                    group.addTask {
                        _ = try await engine.set(DatabasePath("w/\(index)"), .number(.int(Int64(index))), as: .admin)
                    }
                }
                try await group.waitForAll()
            }
        }
        let restored = try await withService(directory) { service in
            try await service.namespace("concurrent").read(DatabasePath("w"))
        }
        #expect(restored.children.count == 300)
        #expect(restored.child(ChildKey("299")) == .value(.number(.int(299))))
    }

    @Test func everyNamespaceIsRestoredWithItsRules() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rules = "{\"rules\":{/* kept */\".read\":true}}"
        try await withService(directory) { service in
            _ = try await service.namespace("one").set(.root, .number(.int(1)), as: .admin)
            let two = try await service.namespace("two")
            _ = try await two.set(DatabasePath("x"), .string("y"), as: .admin)
            try await two.replaceRules(.init(source: rules))
        }
        try await withService(directory) { service in
            #expect(try await service.namespaceNames() == ["one", "two"])
            let one = try await service.namespace("one")
            let two = try await service.namespace("two")
            #expect(await one.read() == .value(.number(.int(1))))
            #expect(await two.currentRules().source == rules)
        }
    }

    /// The history keeps the last 100 writes here, of 8 KB each (4 KB before and after).
    @Test func overwritingTheSamePathsDoesNotGrowTheFiles() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let value = JSONValue.string(String(repeating: "v", count: 4_096))
        try await withService(directory, storeOptions: NamespaceStoreOptions(keptWrites: 100)) { service in
            let engine = try await service.namespace("overwrite")
            for round in 0..<3_000 {
                _ = try await engine.set(DatabasePath("slot/\(round % 10)"), value, as: .admin)
            }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/database")
        let total = try files.reduce(0) { sum, file in
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/database/" + file)
            return sum + ((attributes[.size] as? Int) ?? 0)
        }
        // 3,000 writes of 4 KB is 12 MB written; the store keeps 10 slots and a bounded log.
        #expect(total < 10 * 1024 * 1024, "files: \(files), \(total) bytes")
    }
}
