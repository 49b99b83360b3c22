import HearthCore
import HearthRules
import HearthSupport
import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A rules file on disk: where it is, how to read it, and a service that reloads it when it
/// changes.
public struct RulesFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Why a rules file could not be used.
    public enum Failure: Error, CustomStringConvertible {
        case unreadable(path: String)
        case invalid(path: String, RulesError)
        case invalidProjectFile(String)

        public var description: String {
            switch self {
            case .unreadable(let path): "cannot read the rules file \(path)"
            case .invalid(let path, let error): "\(path): \(error)"
            case .invalidProjectFile(let problem): "firebase.json: \(problem)"
            }
        }
    }

    /// The rules file `firebase.json` in `directory` names (`"database": {"rules": …}`, or the
    /// first entry of a `"database"` array), relative to that directory; `nil` when there is no
    /// `firebase.json` or it names no database rules.
    public static func named(byProjectIn directory: String) throws(Failure) -> RulesFile? {
        let projectPath = directory + "/firebase.json"
        guard let data = FileManager.default.contents(atPath: projectPath) else { return nil }
        let project: JSONValue
        do {
            project = try JSONParser.parse(Array(data), syntax: .rules)
        } catch {
            throw .invalidProjectFile("\(error.position): \(error.reasonText)")
        }
        var database = project["database"]
        if case .array(let targets)? = database { database = targets.first }
        guard case .string(let rules)? = database?["rules"] else { return nil }
        return RulesFile(path: rules.hasPrefix("/") ? rules : directory + "/" + rules)
    }

    /// Reads and checks the file.
    public func load() throws(Failure) -> RulesDocument {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        do {
            return try RulesDocument(source: String(decoding: data, as: UTF8.self))
        } catch {
            throw .invalid(path: path, error)
        }
    }
}

extension RulesFile {
    /// Checks the file once a second and, when it changed and still reads as valid rules, makes
    /// it the rules of every namespace. Invalid edits are logged and leave the rules in force.
    package func watcher(database: DatabaseService, logger: Logger) -> WatchedFile {
        WatchedFile(path: path) {
            do {
                await database.useFileRules(try load())
                logger.notice("reloaded the rules file", metadata: ["path": "\(path)"])
            } catch {
                logger.error("the changed rules file is invalid; the previous rules stay in force", metadata: ["error": "\(error)"])
            }
        }
    }
}
