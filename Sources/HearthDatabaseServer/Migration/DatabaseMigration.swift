import HearthCore
import HearthPostgres
import HearthRules
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The database's part of `hearth migrate --to-postgres`: every namespace of a data directory
/// (its tree, with the writes its durable log held, and its own rules) written into PostgreSQL,
/// then read back from PostgreSQL by a second connection and compared with the source. A
/// namespace PostgreSQL already holds exactly is not written again, so a migration cut short
/// resumes where it stopped. The write history (`/.history`) is not copied: it begins at the
/// move.
package struct DatabaseMigration: Sendable {
    /// The leaves (and priorities) one write carries at most: a large namespace is written in
    /// several, each committed well within PostgreSQL's statement timeout.
    static let leavesPerWrite = 50_000

    /// Whether PostgreSQL at `address` holds no namespace's data or rules.
    package static func holdsNoData(_ address: PostgresAddress, logger: Logger) async throws -> Bool {
        let namespaces = PostgresNamespaces(postgres: address, nodeID: UUID().uuidString.lowercased(), address: "", logger: logger)
        do {
            try await namespaces.prepare()
            let empty = try await namespaces.holdsNoData()
            await namespaces.close()
            return empty
        } catch {
            await namespaces.close()
            throw error
        }
    }

    /// The namespaces of the data directory, opened: another process using it is refused.
    let source: DatabaseService

    /// Opens the namespaces of `dataDirectory`, holding its lock until ``close()``; fails when a
    /// server uses it.
    package static func open(dataDirectory: String, logger: Logger) async throws -> DatabaseMigration {
        let source = DatabaseService(dataDirectory: dataDirectory, logger: logger)
        do {
            try await source.prepare()
        } catch {
            await source.close()
            throw error
        }
        return DatabaseMigration(source: source)
    }

    package func close() async {
        await source.close()
    }

    /// Copies every namespace into PostgreSQL at `address`, then verifies them; the names copied,
    /// each reported to `progress` once written.
    package func copy(
        to address: PostgresAddress, logger: Logger, progress: @Sendable (String) -> Void = { _ in }
    ) async throws -> [String] {
        let names = try await source.namespaceNames()
        try await Self.withTarget(address, logger: logger) { target in
            for name in names {
                let (tree, rules) = try await Self.contents(of: name, in: source)
                try await Self.write(tree, rules: rules, as: name, into: target)
                progress(name)
            }
        }
        // Read back on a new connection, from PostgreSQL rather than from what was written.
        try await Self.withTarget(address, logger: logger) { target in
            for name in names {
                let expected = try await Self.contents(of: name, in: source)
                let found = try await Self.contents(of: name, in: target)
                if found.rules != expected.rules {
                    throw MigrationMismatch(item: "database namespace \(name)", difference: "its rules")
                }
                if found.tree != expected.tree {
                    throw MigrationMismatch(
                        item: "database namespace \(name)",
                        difference: "its data (hash \(NodeHash.hash(expected.tree)) copied, \(NodeHash.hash(found.tree)) read back)")
                }
            }
        }
        return names
    }

    /// Runs `body` with the namespaces in PostgreSQL, owned by this process while it runs.
    private static func withTarget(
        _ address: PostgresAddress, logger: Logger, _ body: (DatabaseService) async throws -> Void
    ) async throws {
        let namespaces = PostgresNamespaces(
            postgres: address, nodeID: "migration-\(UUID().uuidString.lowercased())", address: "", logger: logger)
        let target = DatabaseService(postgres: namespaces, logger: logger)
        do {
            try await target.prepare()
            try await body(target)
            await target.close()
        } catch {
            await target.close()
            throw error
        }
    }

    /// The tree of namespace `name` and the rules stored with it.
    private static func contents(of name: String, in service: DatabaseService) async throws -> (tree: Node, rules: String?) {
        let engine = try await service.namespace(name, for: .admin, writes: true)
        return (await engine.read(), try await engine.storedRules())
    }

    /// Makes namespace `name` of `target` hold `tree` and `rules`, unless it does.
    private static func write(_ tree: Node, rules: String?, as name: String, into target: DatabaseService) async throws {
        _ = try await target.createNamespace(name)
        let engine = try await target.namespace(name, for: .admin, writes: true)
        if await engine.read() != tree {
            _ = try await engine.set(.root, .node(.null), as: .admin)
            try await write(tree, at: .root, to: engine)
        }
        if try await engine.storedRules() != rules, let rules {
            try await engine.replaceRules(try RulesDocument(source: rules))
        }
    }

    /// Writes `node` at `path`, where nothing is yet, in writes of at most ``leavesPerWrite``
    /// leaves: an object too large for one is written child by child, its priority last.
    private static func write(_ node: Node, at path: DatabasePath, to engine: NamespaceEngine) async throws {
        guard case .object(let children, let priority) = node, size(of: node, upTo: leavesPerWrite) > leavesPerWrite else {
            _ = try await engine.set(path, .node(node), as: .admin)
            return
        }
        var group: [(DatabasePath, WriteValue)] = []
        var groupSize = 0
        func flush() async throws {
            guard !group.isEmpty else { return }
            try await engine.update(path, group, as: .admin)
            group = []
            groupSize = 0
        }
        for (key, child) in children {
            let childSize = size(of: child, upTo: leavesPerWrite)
            if childSize > leavesPerWrite {
                try await write(child, at: path.child(key), to: engine)
                continue
            }
            if groupSize + childSize > leavesPerWrite { try await flush() }
            group.append((DatabasePath(validatedKeys: [key]), .node(child)))
            groupSize += childSize
        }
        try await flush()
        if let priority {
            let json: JSONValue =
                switch priority {
                case .number(let number): .number(number)
                case .string(let string): .string(string)
                }
            _ = try await engine.set(path.child(DatabasePath.priorityKey), .json(json), as: .admin)
        }
    }

    /// The leaves and priorities of `node`, counted no further than past `limit`.
    private static func size(of node: Node, upTo limit: Int) -> Int {
        switch node {
        case .null: return 0
        case .leaf(_, let priority): return priority == nil ? 1 : 2
        case .object(let children, let priority):
            var count = priority == nil ? 0 : 1
            for (_, child) in children {
                count += size(of: child, upTo: limit - count)
                if count > limit { break }
            }
            return count
        }
    }
}
