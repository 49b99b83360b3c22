import HearthCore
import HearthEdge
import Logging

@testable import HearthDatabaseServer
@testable import HearthServer

/// Writes of JSON values, prepared as the transports prepare them, to keep tests short.
extension NamespaceEngine {
    func set(
        _ path: DatabasePath, _ json: JSONValue, ifMatch precondition: WritePrecondition? = nil, as caller: Caller
    ) async throws -> SetOutcome {
        try await set(path, WriteValue.prepare(json, at: path), ifMatch: precondition, as: caller)
    }

    func update(_ path: DatabasePath, _ entries: [(DatabasePath, JSONValue)], as caller: Caller) async throws {
        let prepared = try entries.map { relative, json in (relative, try WriteValue.prepare(json, at: path.appending(relative))) }
        try await update(path, prepared, as: caller)
    }
}

/// The engine of a namespace as its administrator, who may create it.
extension DatabaseService {
    func namespace(_ name: String) async throws -> NamespaceEngine {
        try await namespace(name, for: .admin, writes: true)
    }
}

/// Namespace `ns` of the data directory `directory`, opened as ``DatabaseService`` opens one:
/// its store beside a durable log, its tree read page by page through a cache of `cacheBytes`.
/// ``close()`` closes both, as a clean stop does.
struct TestNamespace {
    let engine: NamespaceEngine
    let store: NamespaceStore
    let log: NodeLog
    /// The tree as opened, its pages not read yet: a snapshot as old as the engine.
    let openedTree: Node

    static func open(
        _ directory: String, options: NamespaceStoreOptions = .init(), cacheBytes: Int = 64 << 20, logger: Logger
    ) async throws -> TestNamespace {
        let files = NamespaceFiles(dataDirectory: directory)
        try files.createDirectory()
        let log = try NodeLog.open(directory: files.logDirectory, logger: logger)
        let cache = PageCache(capacity: cacheBytes)
        let listened = ListenedPaths()
        let store = try await NamespaceStore.open(
            path: files.path(of: "ns"), name: "ns", log: log, options: options, cache: cache, listened: listened, logger: logger)
        let (tree, _) = try await store.openTree()
        let engine = NamespaceEngine(
            name: "ns", store: store,
            createStore: { throw DatabaseError.unavailable("the test namespace's store exists") }, listened: listened,
            root: tree, rules: .open, explainsDenials: false, logger: logger)
        return TestNamespace(engine: engine, store: store, log: log, openedTree: tree)
    }

    func close() async {
        await engine.close()
        await log.close()
    }
}
