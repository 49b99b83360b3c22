import Foundation
import HearthCore
import Logging
import Testing

@testable import HearthDatabaseServer

/// A namespace read page by page from its file: what a client reads, writes and listens to is
/// what a tree held whole in memory would give, however small the cache. Pages read at most 16
/// rows whole, so that small trees are read one level deep at several depths.
@Suite(.serialized) struct PagingTests {
    private let logger = Logger(label: "test")

    private static func options(maximumEntries: Int = 10_000) -> NamespaceStoreOptions {
        var options = NamespaceStoreOptions(journalLimits: JournalLedger(maximumEntries: maximumEntries))
        options.wholePageRows = 16
        return options
    }

    private func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hearth-paging-\(UUID().uuidString)").path
    }

    /// A tree with objects larger than a page read whole at the root, under `users`, `big` and
    /// `users/deep/l1`, keys whose byte order is not Firebase's order or that sort between a key
    /// and its children (`k`, `k y`, `k-y`, `10`, `9`), and priorities on leaves, objects and
    /// the root.
    private static func dataset() throws -> JSONValue {
        var users = (0..<150).map { "\"u\($0)\":{\"name\":\"n\($0)\",\"age\":\($0),\"tags\":{\"a\":true,\"b\":\"x\"}}" }
        let deep = (0..<40).map { "\"d\($0)\":{\"x\":\($0),\"y\":{\".value\":\"z\",\".priority\":\($0)}}" }
        users.append("\"deep\":{\"l1\":{\(deep.joined(separator: ","))},\".priority\":\"p\"}")
        users += [
            "\"k\":1", "\"k-y\":{\"z\":2}", "\"k y\":\"s\"", "\"10\":{\".priority\":3,\"a\":1}", "\"9\":{\".value\":5,\".priority\":\"p\"}",
            "\"-x\":{\"deep\":{\"er\":1}}",
        ]
        let big = (0..<250).map { "\"v\($0)\":{\".value\":\($0),\".priority\":\($0 % 7)}" }
        let text = "{\".priority\":1,\"users\":{\(users.joined(separator: ","))},\"big\":{\(big.joined(separator: ","))},\"a\":\"b\"}"
        return try JSONParser.parse(text)
    }

    /// Writes the dataset into a new namespace at `directory`, folded into its leaf rows (an
    /// opening replays the log and compacts it); returns the tree as written.
    private func seed(_ directory: String) async throws -> Node {
        let namespace = try await TestNamespace.open(directory, options: Self.options(), logger: logger)
        _ = try await namespace.engine.set(.root, Self.dataset(), as: .admin)
        let tree = await namespace.engine.read()
        await namespace.close()
        await try TestNamespace.open(directory, options: Self.options(), logger: logger).close()
        return tree
    }

    @Test func aNamespaceOpensWithoutReadingItsTreeAndReadsOnlyThePagesOnAPath() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let written = try await seed(directory)
        let namespace = try await TestNamespace.open(directory, options: Self.options(), cacheBytes: 1 << 30, logger: logger)
        let cache = namespace.store.pages.cache
        #expect(cache.lookups.misses == 0)
        #expect(await namespace.engine.read(try DatabasePath("users/u7/name")) == .value(.string("n7")))
        // `users` and `u7` read on their own (the root and `users` are too wide to read whole),
        // then `u7` whole: neither level is read.
        #expect(cache.lookups.misses == 3)
        #expect(cache.bytes < 4096)
        #expect(await namespace.engine.read(try DatabasePath("users/deep/l1/d7/y")) == .leaf(.string("z"), priority: .number(.int(7))))
        // `deep`, `l1` and `d7` read on their own from pages too wide to read whole, then `d7`.
        #expect(cache.lookups.misses == 7)
        #expect(await namespace.engine.read() == written)
        await namespace.close()
    }

    @Test func readsAndWritesThroughATinyCacheMatchATreeHeldWhole() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var model = try await seed(directory)
        var generator = SystemRandomNumberGenerator()
        let capacity = 8 << 10
        let namespace = try await TestNamespace.open(
            directory, options: Self.options(maximumEntries: 20), cacheBytes: capacity, logger: logger)
        let engine = namespace.engine
        let cache = namespace.store.pages.cache
        func randomPath() throws -> DatabasePath {
            switch Int.random(in: 0..<7, using: &generator) {
            case 0: try DatabasePath("users/u\(Int.random(in: 0..<160, using: &generator))")
            case 1: try DatabasePath("users/u\(Int.random(in: 0..<160, using: &generator))/name")
            case 2: try DatabasePath("big/v\(Int.random(in: 0..<260, using: &generator))")
            case 3: try DatabasePath(["users/k", "users/k-y/z", "users/k y", "users/10", "users/9", "users/-x/deep"].randomElement()!)
            case 4: try DatabasePath(["users", "big", "a", "", "users/deep", "users/deep/l1"].randomElement()!)
            case 5: try DatabasePath("users/deep/l1/d\(Int.random(in: 0..<45, using: &generator))/y")
            default: try DatabasePath("users/u\(Int.random(in: 0..<160, using: &generator))/tags/a")
            }
        }
        func randomValue() throws -> JSONValue {
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: .null
            case 1: .number(.int(Int64.random(in: 0..<100, using: &generator)))
            case 2: try JSONParser.parse("{\"name\":\"w\",\"tags\":{\"c\":1},\".priority\":2}")
            case 3: try JSONParser.parse("{\".value\":\"s\",\".priority\":\"q\"}")
            default: .string("x")
            }
        }
        for step in 0..<150 {
            let path = try randomPath()
            // Writes at the root or `users` would replace most of the data: rarely.
            if path.keys.count >= 2 || step % 50 == 49 {
                let value = try randomValue()
                _ = try await engine.set(path, value, as: .admin)
                model = model.updatingChild(at: path, with: try NodeBuilder(timestamp: 0).build(value, at: path, existing: .null))
            }
            for _ in 0..<3 {
                let read = try randomPath()
                #expect(await engine.read(read) == model.child(at: read), "step \(step): \(read)")
            }
            // The cache stays within its capacity, give or take the page just read.
            #expect(cache.bytes <= capacity + 64 << 10)
        }
        #expect(await engine.read() == model)
        #expect(cache.lookups.misses > 50, "the cache dropped pages and read them again")
        await namespace.close()
        let reopened = try await TestNamespace.open(directory, options: Self.options(), logger: logger)
        #expect(await reopened.engine.read() == model)
        await reopened.close()
    }

    /// Whether `node` holds a paged map anywhere.
    private static func holdsPages(_ node: Node) -> Bool {
        guard case .object(let children, _) = node else { return false }
        return children.page != nil || children.contains { holdsPages($0.value) }
    }

    @Test func whatTheEngineHandsOutNeverReadsAPageAgain() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let written = try await seed(directory)
        let namespace = try await TestNamespace.open(
            directory, options: Self.options(maximumEntries: 1), cacheBytes: 4 << 10, logger: logger)
        let engine = namespace.engine
        #expect(Self.holdsPages(namespace.openedTree), "the tree as opened is paged")
        let users = await engine.read(try DatabasePath("users"))
        let everything = await engine.read()
        let window = try await engine.query(try DatabasePath("users"), QueryParams(index: .key, limit: 3), as: .admin)
        #expect(!Self.holdsPages(users) && !Self.holdsPages(everything) && !window.contains { Self.holdsPages($0.value) })
        // Writes that replace what was read, and the compaction that rewrites its rows, change
        // nothing in it.
        _ = try await engine.set(try DatabasePath("users"), .object([JSONMember(key: "only", value: .bool(true))]), as: .admin)
        for index in 0..<3 { _ = try await engine.set(try DatabasePath("c/\(index)"), .bool(true), as: .admin) }
        try await namespace.store.flush()
        while namespace.store.isCompacting {
            _ = try await engine.set(try DatabasePath("c/x"), .bool(true), as: .admin)
            try await namespace.store.flush()
        }
        #expect(users == written.child(at: try DatabasePath("users")))
        #expect(everything == written)
        #expect(await engine.read(try DatabasePath("users/u7")) == .null)
        await namespace.close()
    }

    @Test func listenedPagesStayLoadedWhileOthersAreDropped() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await seed(directory)
        let namespace = try await TestNamespace.open(directory, options: Self.options(), cacheBytes: 4 << 10, logger: logger)
        let engine = namespace.engine
        let cache = namespace.store.pages.cache
        _ = try await engine.addListener(
            at: try DatabasePath("users/u3"), query: .all, format: RealtimeEventFormat(), sink: RulesEnforcementTests.RecordingSink(),
            as: .admin)
        for index in stride(from: 0, to: 250, by: 5) { _ = await engine.read(try DatabasePath("big/v\(index)")) }
        for index in stride(from: 10, to: 150, by: 10) { _ = await engine.read(try DatabasePath("users/u\(index)")) }
        let misses = cache.lookups.misses
        _ = await engine.read(try DatabasePath("users/u3/name"))
        #expect(cache.lookups.misses == misses, "the listened page and those above it stayed loaded")
        await namespace.close()
    }

    @Test func whatWritesAddBecomesPagesOnceFoldedAndIsReadBackWhenDropped() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await seed(directory)
        let namespace = try await TestNamespace.open(
            directory, options: Self.options(maximumEntries: 10), cacheBytes: 4 << 10, logger: logger)
        let engine = namespace.engine
        let cache = namespace.store.pages.cache
        for index in 0..<60 {
            let value = try JSONParser.parse("{\"name\":\"w\(index)\",\"tags\":{\"c\":\(index)}}")
            _ = try await engine.set(try DatabasePath("added/a\(index)"), value, as: .admin)
        }
        // Writes elsewhere fill the ledger until a compaction folds every write above: how the
        // writes were batched decides which compaction that is. Reading elsewhere fills the
        // cache, which drops what the writes made pages of (once the engine has made them, in
        // turns of its own after the fold: later on a busy machine).
        var readAgain = false
        for _ in 0..<100 where !readAgain {
            _ = try await engine.set(try DatabasePath("c"), .bool(true), as: .admin)
            try await namespace.store.flush()
            for index in stride(from: 0, to: 250, by: 10) { _ = await engine.read(try DatabasePath("big/v\(index)")) }
            let misses = cache.lookups.misses
            #expect(await engine.read(try DatabasePath("added/a7/tags/c")) == .value(.number(.int(7))))
            readAgain = cache.lookups.misses > misses
            if !readAgain { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(readAgain, "the written object was dropped and read again from the file")
        for index in 0..<60 {
            #expect(await engine.read(try DatabasePath("added/a\(index)/name")) == .value(.string("w\(index)")))
        }
        await namespace.close()
    }
}
