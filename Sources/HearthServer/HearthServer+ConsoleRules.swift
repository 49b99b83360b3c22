import HearthConsole
import HearthCore
import HearthDatabaseServer
import HearthRules
import HearthStorageRules
import HearthStorageServer

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension HearthServer {
    /// The console's access to the database rules: the rules file when the server has one
    /// (publishing writes it and puts it in force at once), else each namespace's own rules.
    func databaseRulesAccess() -> RulesAccess {
        let database = self.database
        let file = configuration.rulesFile
        return RulesAccess(
            read: { namespace in
                if let file { return RulesFileText.read(file.path) }
                guard let engine = try? await database.namespace(namespace, for: .admin, writes: false) else { return nil }
                return (await engine.currentRules().source, nil)
            },
            publish: { namespace, source, dryRun in
                let document: RulesDocument
                do {
                    document = try RulesDocument(source: source)
                } catch {
                    return "\(error)"
                }
                if dryRun { return nil }
                if let file {
                    if let problem = RulesFileText.write(source, to: file.path) { return problem }
                    await database.useFileRules(document)
                    return nil
                }
                do {
                    try await database.namespace(namespace, for: .admin, writes: true).replaceRules(document)
                } catch {
                    return "\(error)"
                }
                return nil
            },
            simulate: { namespace, request in
                guard let engine = try? await database.namespace(namespace, for: .admin, writes: false) else {
                    return .failure(SimulationRefused("NAMESPACE_NOT_FOUND"))
                }
                let operation: String
                if case .string(let name)? = request["operation"] { operation = name } else { operation = "read" }
                let path: String
                if case .string(let text)? = request["path"] { path = text } else { path = "/" }
                var query: String?
                if case .string(let text)? = request["query"] { query = text }
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                if operation == "readable" {
                    guard case .array(let items)? = request["paths"] else {
                        return .failure(SimulationRefused("paths: an array of locations"))
                    }
                    let paths = items.compactMap { item -> String? in if case .string(let text) = item { text } else { nil } }
                    do {
                        return .success(
                            try ReadAccess.judge(
                                paths, auth: request["auth"] ?? .null, rules: await engine.currentRules(),
                                tree: await engine.read(), now: now))
                    } catch {
                        return .failure(SimulationRefused("\(error)"))
                    }
                }
                do {
                    let simulation = try RulesSimulation(
                        path: path, auth: request["auth"] ?? .null,
                        set: operation == "set" ? (request["value"] ?? .null) : nil,
                        update: operation == "update" ? (request["value"] ?? .object([])) : nil, query: query)
                    let decision = try simulation.decide(await engine.currentRules(), tree: await engine.read(), now: now)
                    return .success(decision.json)
                } catch {
                    return .failure(SimulationRefused("\(error)"))
                }
            })
    }

    /// The console's access to the storage rules: the rules file when the server has one
    /// (publishing writes it and puts it in force at once), else the rules in force, as
    /// `/internal/setRules` sets them.
    func storageRulesAccess(storage: StorageService) -> RulesAccess {
        let file = configuration.storageRulesFile
        return RulesAccess(
            read: { _ in
                if let file { return RulesFileText.read(file.path) }
                return storage.rules.source.map { ($0, nil) }
            },
            publish: { _, source, dryRun in
                let ruleset: StorageRuleset
                do throws(StorageRulesError) {
                    ruleset = try StorageRuleset(source: source)
                } catch {
                    return "Line \(error.line) (column \(error.column)): \(error.message)"
                }
                if dryRun { return nil }
                if let file, let problem = RulesFileText.write(source, to: file.path) { return problem }
                storage.rules.replace(with: ruleset)
                return nil
            },
            simulate: { _, request in
                do throws(StorageRulesSimulationFailure) {
                    return .success(try await storage.simulateRules(request))
                } catch {
                    return .failure(SimulationRefused(error.description))
                }
            })
    }
}

/// A rules file as the console reads and publishes it.
private enum RulesFileText {
    /// The file's text and path; `nil` when it cannot be read.
    static func read(_ path: String) -> (source: String, file: String?)? {
        guard let source = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return (source, path)
    }

    /// Replaces the file's text at once (a reader sees the old or the new file, never half);
    /// returns the problem when it cannot.
    static func write(_ source: String, to path: String) -> String? {
        do {
            try source.write(toFile: path, atomically: true, encoding: .utf8)
            return nil
        } catch {
            return "cannot write \(path): \(error)"
        }
    }
}
