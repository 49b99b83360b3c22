import HearthConsole
import HearthCore
import HearthDatabaseServer
import HearthRules

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension HearthServer {
    /// The console's access to the database rules: the rules file when the server has one
    /// (publishing writes it and puts it in force at once), else each namespace's own rules.
    func consoleRulesAccess() -> DatabaseRulesAccess {
        let database = self.database
        let file = configuration.rulesFile
        return DatabaseRulesAccess(
            read: { namespace in
                if let file {
                    guard let source = try? String(contentsOfFile: file.path, encoding: .utf8) else { return nil }
                    return (source, file.path)
                }
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
                    do {
                        try source.write(toFile: file.path, atomically: true, encoding: .utf8)
                    } catch {
                        return "cannot write \(file.path): \(error)"
                    }
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
                do {
                    let simulation = try RulesSimulation(
                        path: path, auth: request["auth"] ?? .null,
                        set: operation == "set" ? (request["value"] ?? .null) : nil,
                        update: operation == "update" ? (request["value"] ?? .object([])) : nil, query: query)
                    let decision = try simulation.decide(
                        await engine.currentRules(), tree: await engine.read(), now: Int64(Date().timeIntervalSince1970 * 1000))
                    return .success(decision.json)
                } catch {
                    return .failure(SimulationRefused("\(error)"))
                }
            })
    }
}
