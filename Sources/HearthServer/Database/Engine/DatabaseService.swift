import HearthCore
import HearthRules
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Every namespace of one Hearth server: opens each on first use (creating it, as the Firebase
/// emulator does) from its SQLite file under `<data dir>/database/`.
public actor DatabaseService {
    private let directory: String
    private var rulesPolicy: RulesPolicy
    private let logger: Logger
    /// The open engines, readable without a hop onto this actor: every request looks one up.
    private let openEngines = Mutex<[String: NamespaceEngine]>([:])
    private var opening: [String: Task<NamespaceEngine, any Error>] = [:]

    /// Serves namespaces stored under `dataDirectory`, restoring every one found there, with
    /// the rules `rulesPolicy` gives them.
    public init(dataDirectory: String, rulesPolicy: RulesPolicy = .development, logger: Logger) {
        self.directory = dataDirectory + "/database"
        self.rulesPolicy = rulesPolicy
        self.logger = logger
    }

    /// Makes `document`, read from the rules file, the rules of every namespace, open or not.
    public func useFileRules(_ document: RulesDocument) async {
        rulesPolicy.fileRules = document
        for engine in openEngines.withLock({ Array($0.values) }) {
            await engine.useRules(document)
        }
    }

    /// Opens every namespace that has a file, so that a restart restores all of them.
    public func restoreAll() async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasSuffix(".sqlite") {
            _ = try await namespace(String(file.dropLast(".sqlite".count)))
        }
    }

    /// The names of the namespaces that exist.
    public func namespaceNames() -> [String] {
        openEngines.withLock { $0.keys.sorted() }
    }

    /// The engine of namespace `name`, creating the namespace if needed.
    public nonisolated func namespace(_ name: String) async throws -> NamespaceEngine {
        if let engine = openEngines.withLock({ $0[name] }) { return engine }
        return try await openNamespace(name)
    }

    private func openNamespace(_ name: String) async throws -> NamespaceEngine {
        if let engine = openEngines.withLock({ $0[name] }) { return engine }
        guard Self.isValidName(name) else { throw DatabaseError.invalidNamespace(name) }
        if let task = opening[name] { return try await task.value }
        let task = Task { try await open(name) }
        opening[name] = task
        defer { opening[name] = nil }
        let engine = try await task.value
        openEngines.withLock { $0[name] = engine }
        return engine
    }

    private func open(_ name: String) async throws -> NamespaceEngine {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let clock = ContinuousClock()
        let start = clock.now
        let store = try await NamespaceStore.open(path: "\(directory)/\(name).sqlite", logger: logger)
        let (tree, rows) = try await store.loadTree()
        let rules: RulesDocument
        if let fileRules = rulesPolicy.fileRules {
            rules = fileRules
        } else if let source = try await store.setting(NamespaceEngine.rulesSetting) {
            rules = try RulesDocument(source: source)
        } else {
            rules = rulesPolicy.fallback
        }
        logger.info(
            "opened namespace",
            metadata: ["namespace": "\(name)", "rows": "\(rows)", "duration": "\(clock.now - start)"])
        return NamespaceEngine(
            name: name, store: store, root: tree, rules: rules, explainsDenials: rulesPolicy.explainsDenials, logger: logger)
    }

    /// Finishes every pending commit and closes every store.
    public func close() async {
        let engines = openEngines.withLock { engines in
            defer { engines = [:] }
            return Array(engines.values)
        }
        for engine in engines { await engine.close() }
    }

    /// Letters, digits, `-` and `_`, 1 to 63 characters: safe as a file name.
    static func isValidName(_ name: String) -> Bool {
        guard (1...63).contains(name.utf8.count) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
