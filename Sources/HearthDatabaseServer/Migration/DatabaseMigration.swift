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
/// resumes where it stopped; one it holds otherwise was written in part by this migration (the
/// command refuses to resume once a node served the database) and is written again whole. The
/// write history (`/.history`) is not copied: it begins with the migration's own writes. One
/// namespace is open at a time, on each side.
package struct DatabaseMigration: Sendable {
    /// A write carries at most this many leaves (and priorities) and about this many bytes of
    /// JSON: a large namespace is written in several, each committed well within PostgreSQL's
    /// statement timeout and its limit on one value.
    static let perWrite = WriteCost(leaves: 50_000, bytes: 16 << 20)

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
                await closeIdle(source, target)
                progress(name)
            }
        }
        // Read back on a new connection, from PostgreSQL rather than from what was written.
        try await Self.withTarget(address, logger: logger) { target in
            let found = Set(try await target.namespaceNames())
            if let extra = found.subtracting(names).sorted().first {
                throw MigrationError.changedElsewhere(
                    item: "database namespace \(extra)", reason: "the data directory has no such namespace")
            }
            for name in names {
                try await Self.verify(name, in: target, against: source)
                await closeIdle(source, target)
            }
        }
        return names
    }

    /// Closes the namespaces just used, so that one is open at a time.
    private func closeIdle(_ services: DatabaseService...) async {
        for service in services { await service.closeIdleNamespaces(idleFor: .zero) }
    }

    /// Runs `body` with the namespaces in PostgreSQL, owned by this process while it runs.
    private static func withTarget(
        _ address: PostgresAddress, logger: Logger, _ body: (DatabaseService) async throws -> Void
    ) async throws {
        let namespaces = PostgresNamespaces(
            postgres: address, nodeID: "\(nodePrefix)\(UUID().uuidString.lowercased())", address: "", logger: logger)
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

    /// How the migration's node ids begin, telling its claims of namespaces from a node's.
    package static let nodePrefix = "migration-"

    /// The tree of namespace `name` and the rules stored with it.
    private static func contents(of name: String, in service: DatabaseService) async throws -> (tree: Node, rules: String?) {
        let engine = try await service.namespace(name, for: .admin, writes: true)
        return (await engine.read(), try await engine.storedRules())
    }

    /// Throws unless namespace `name` holds in `target` what it holds in `source`.
    private static func verify(_ name: String, in target: DatabaseService, against source: DatabaseService) async throws {
        let expected = try await contents(of: name, in: source)
        let found = try await contents(of: name, in: target)
        if found.rules != expected.rules {
            throw MigrationError.mismatch(item: "database namespace \(name)", difference: "its rules")
        }
        if found.tree != expected.tree {
            throw MigrationError.mismatch(
                item: "database namespace \(name)",
                difference: "its data (hash \(NodeHash.hash(expected.tree)) copied, \(NodeHash.hash(found.tree)) read back)")
        }
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

    /// Writes `node` at `path`, where nothing is yet, in writes no larger than ``perWrite``: an
    /// object too large for one is written child by child, its priority last.
    private static func write(_ node: Node, at path: DatabasePath, to engine: NamespaceEngine) async throws {
        guard case .object(let children, let priority) = node, WriteCost.of(node, upTo: perWrite).exceeds(perWrite) else {
            _ = try await engine.set(path, .node(node), as: .admin)
            return
        }
        var group: [(DatabasePath, WriteValue)] = []
        var groupCost = WriteCost()
        func flush() async throws {
            guard !group.isEmpty else { return }
            try await engine.update(path, group, as: .admin)
            group = []
            groupCost = WriteCost()
        }
        for (key, child) in children {
            let childCost = WriteCost.of(child, upTo: perWrite).adding(key: key)
            if childCost.exceeds(perWrite) {
                try await write(child, at: path.child(key), to: engine)
                continue
            }
            if groupCost.adding(childCost).exceeds(perWrite) { try await flush() }
            group.append((DatabasePath(validatedKeys: [key]), .node(child)))
            groupCost = groupCost.adding(childCost)
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
}

/// What writing a node costs: its leaves and priorities, and about the bytes of their JSON.
struct WriteCost: Sendable {
    var leaves = 0
    var bytes = 0

    func exceeds(_ limit: WriteCost) -> Bool { leaves > limit.leaves || bytes > limit.bytes }

    func adding(_ other: WriteCost) -> WriteCost { WriteCost(leaves: leaves + other.leaves, bytes: bytes + other.bytes) }

    func adding(key: ChildKey) -> WriteCost { WriteCost(leaves: leaves, bytes: bytes + key.string.utf8.count + 4) }

    /// The cost of `node`, counted no further than past `limit`.
    static func of(_ node: Node, upTo limit: WriteCost) -> WriteCost {
        switch node {
        case .null: return WriteCost()
        case .leaf(let value, let priority):
            return WriteCost(leaves: 1, bytes: bytes(of: value)).adding(priority.map(of) ?? WriteCost())
        case .object(let children, let priority):
            var cost = priority.map(of) ?? WriteCost()
            for (key, child) in children {
                cost = cost.adding(of(child, upTo: limit).adding(key: key))
                if cost.exceeds(limit) { break }
            }
            return cost
        }
    }

    private static func of(_ priority: Priority) -> WriteCost {
        WriteCost(leaves: 1, bytes: bytes(of: priority.leafValue) + 16)
    }

    private static func bytes(of value: LeafValue) -> Int {
        switch value {
        case .bool: 5
        case .number: 24
        case .string(let string): string.utf8.count + 2
        }
    }
}
