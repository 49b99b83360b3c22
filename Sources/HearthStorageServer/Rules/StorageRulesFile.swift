import HearthCore
import HearthStorageRules
import HearthSupport
import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A `storage.rules` file: where it is, how to read it, and a service that reloads it when it
/// changes.
public struct StorageRulesFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Why a storage rules file could not be used.
    public enum Failure: Error, CustomStringConvertible {
        case unreadable(path: String)
        case invalid(path: String, String)
        case invalidProjectFile(String)

        public var description: String {
            switch self {
            case .unreadable(let path): "cannot read the storage rules file \(path)"
            case .invalid(let path, let error): "\(path): \(error)"
            case .invalidProjectFile(let problem): "firebase.json: \(problem)"
            }
        }
    }

    /// The rules file `firebase.json` in `directory` names (`"storage": {"rules": …}`, or the
    /// first entry of a `"storage"` array), relative to that directory; `nil` when there is none.
    public static func named(byProjectIn directory: String) throws(Failure) -> StorageRulesFile? {
        guard let data = FileManager.default.contents(atPath: directory + "/firebase.json") else { return nil }
        let project: JSONValue
        do {
            project = try JSONParser.parse(Array(data), syntax: .rules)
        } catch {
            throw .invalidProjectFile("\(error.position): \(error.reasonText)")
        }
        var storage = project["storage"]
        if case .array(let targets)? = storage { storage = targets.first }
        guard case .string(let rules)? = storage?["rules"] else { return nil }
        return StorageRulesFile(path: rules.hasPrefix("/") ? rules : directory + "/" + rules)
    }

    /// Reads and compiles the file.
    public func load() throws(Failure) -> StorageRuleset {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        do {
            return try StorageRuleset(source: String(decoding: data, as: UTF8.self))
        } catch {
            throw .invalid(path: path, "\(error)")
        }
    }
}

extension StorageRulesFile {
    /// Checks the storage rules file once a second and puts it in force when it changed and
    /// still compiles; an invalid edit is logged and the previous rules stay (spec storage-api
    /// §10).
    package func watcher(rules: StorageRulesState, logger: Logger) -> WatchedFile {
        WatchedFile(path: path) {
            do {
                rules.replace(with: try load())
                logger.notice("reloaded the storage rules file", metadata: ["path": "\(path)"])
            } catch {
                logger.error(
                    "the changed storage rules file is invalid; the previous rules stay in force", metadata: ["error": "\(error)"])
            }
        }
    }
}
