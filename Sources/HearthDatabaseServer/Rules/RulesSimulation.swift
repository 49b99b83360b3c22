import HearthCore
import HearthEdge
import HearthRules

/// One read or write judged by rules without being performed, every rule it evaluates recorded:
/// `hearth rules:test` and the console's playground.
public struct RulesSimulation: Sendable {
    /// Why a simulation could not be described or run.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The input at fault: `path`, `update`, `query`, or `write` when the write cannot apply.
        public let input: String
        public let problem: String

        public var description: String { "\(input): \(problem)" }
    }

    public enum Operation: Sendable {
        case read(QueryParams?)
        case write(QueuedWrite)
    }

    public let location: DatabasePath
    public let operation: Operation
    /// The `auth` variable: JSON null for a signed-out caller.
    public let auth: JSONValue

    /// A read at `path` (with REST query parameters `query`), or a write: `set` replaces the
    /// node, `update` is an object of relative paths and values (a multi-path update).
    public init(path: String, auth: JSONValue, set: JSONValue?, update: JSONValue?, query: String?) throws(Failure) {
        do {
            location = try DatabasePath(writeLocation: path)
        } catch {
            throw Failure(input: "path", problem: "\(error)")
        }
        self.auth = auth
        if let set {
            operation = .write(.set(location, .json(set)))
        } else if let update {
            guard case .object(let members) = update else {
                throw Failure(input: "update", problem: "must be a JSON object of relative paths")
            }
            var entries: [(DatabasePath, WriteValue)] = []
            for member in members {
                do {
                    entries.append((try DatabasePath(writeLocation: member.key), .json(member.value)))
                } catch {
                    throw Failure(input: "update", problem: "\(error)")
                }
            }
            operation = .write(.update(location, entries))
        } else {
            do {
                operation = .read(try QueryString.databaseQuery(query ?? ""))
            } catch {
                throw Failure(input: "query", problem: "\(error)")
            }
        }
    }

    /// How `rules` decide the operation on `tree` at `now` (milliseconds).
    public func decide(_ rules: RulesDocument, tree: Node, now: Int64) throws(Failure) -> RuleDecision {
        let request = RuleRequest(auth: auth, now: now)
        switch operation {
        case .read(let query):
            return rules.checkRead(location.priorityOwner ?? location, query: query, by: request, tree: tree, explain: true)
        case .write(let write):
            let after: Node
            do {
                after = try write.applied(to: tree, timestamp: now) ?? tree
            } catch {
                throw Failure(input: "write", problem: "\(error)")
            }
            return rules.checkWrite(write.replacedLocations, by: request, before: tree, after: after, explain: true)
        }
    }
}
