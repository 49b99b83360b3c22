import ArgumentParser
import Foundation
import HearthCore
import HearthDatabaseServer
import HearthEdge
import HearthRules
import HearthServer

/// `hearth rules:check FILE`: checks a rules file as Firebase checks one at deploy time.
struct RulesCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules:check", abstract: "Check a database rules file as Firebase does when rules are deployed.")

    @Argument(help: "The rules file (database.rules.json).")
    var file: String

    func run() throws {
        do {
            _ = try RulesFile(path: file).load()
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode.failure
        }
        print("\(file): valid")
    }
}

/// `hearth rules:test`: evaluates one read or write against a rules file and says which rules
/// decided it. Exits with 0 when the operation is allowed and 1 when it is denied.
struct RulesTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules:test",
        abstract: "Evaluate a read or write against database rules and explain the outcome.",
        discussion: """
            Without --set or --update the operation is a read (add --query for a query). \
            Example: hearth rules:test --path /users/alice --auth '{"uid":"alice"}' --set '{"name":"A"}'
            """)

    @Option(help: "The rules file (default: the one firebase.json in this directory names).")
    var rules: String?

    @Option(help: "The location read or written.")
    var path: String

    @Option(help: "The auth variable as JSON, such as {\"uid\":\"alice\"}; null is a signed-out caller.")
    var auth = "null"

    @Option(help: "The database before the operation, as JSON.")
    var data = "null"

    @Option(help: "Write this JSON value at the path (a set).")
    var set: String?

    @Option(help: "Apply this JSON object of relative paths and values below the path (a multi-path update).")
    var update: String?

    @Option(help: "For a read, REST query parameters, such as orderBy=\"$key\"&limitToFirst=10.")
    var query: String?

    func run() throws {
        let document = try loadRules()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let initial = try json(data, "--data")
        let tree = try parse("--data") { () throws(DataError) in try NodeBuilder(timestamp: now).build(initial, at: .root, existing: .null)
        }
        let decision: RuleDecision
        do {
            let simulation = try RulesSimulation(
                path: path, auth: try json(auth, "--auth"), set: try set.map { try json($0, "--set") },
                update: try update.map { try json($0, "--update") }, query: query)
            decision = try simulation.decide(document, tree: tree, now: now)
        } catch let failure as RulesSimulation.Failure {
            throw ValidationError(failure.input == "write" ? "the write: \(failure.problem)" : "--\(failure)")
        }
        print(decision.isAllowed ? "ALLOWED" : "DENIED")
        for evaluation in decision.evaluations { print("  \(evaluation)") }
        if decision.evaluations.isEmpty { print("  no rule on the path from the root applies") }
        if !decision.isAllowed { throw ExitCode.failure }
    }

    private func loadRules() throws -> RulesDocument {
        let directory = FileManager.default.currentDirectoryPath
        guard let file = try rules.map(RulesFile.init(path:)) ?? RulesFile.named(byProjectIn: directory) else {
            throw ValidationError("no rules file: pass --rules or run where firebase.json names one")
        }
        return try file.load()
    }

    private func json(_ text: String, _ option: String) throws -> JSONValue {
        try parse(option) { () throws(JSONParseError) in try JSONParser.parse(text) }
    }

    /// Runs `body`, turning its error into a usage error that names `option`.
    private func parse<T, E: Error>(_ option: String, _ body: () throws(E) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ValidationError("\(option): \(error)")
        }
    }
}
