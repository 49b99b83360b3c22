import HearthCore
import HearthStorageRules

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why the playground could not describe a storage request.
package struct StorageRulesSimulationFailure: Error, Sendable, CustomStringConvertible {
    package let description: String
}

extension StorageService {
    /// One request judged by the storage rules in force without being performed, for the
    /// console's playground: `{method: get | list | create | update | delete, bucket, path, auth,
    /// resource?: {contentType?, size?, metadata?}}` → `{allowed, explanation}`. `resource` is
    /// stored object at `path`, if any; `request.resource` (create and update) is the object as
    /// the request would leave it: the stored one, if any, with the fields given.
    package func simulateRules(_ request: JSONValue) async throws(StorageRulesSimulationFailure) -> JSONValue {
        guard case .string(let methodName)? = request["method"], let method = StorageRuleMethod(rawValue: methodName) else {
            throw StorageRulesSimulationFailure(description: "method: must be get, list, create, update or delete")
        }
        guard case .string(let bucket)? = request["bucket"], !bucket.isEmpty else {
            throw StorageRulesSimulationFailure(description: "bucket: required")
        }
        var path = ""
        if case .string(let text)? = request["path"] { path = String(text.drop { $0 == "/" }) }
        var auth: StorageRuleAuth?
        if let json = request["auth"], json != .null {
            guard case .string(let uid)? = json["uid"] else {
                throw StorageRulesSimulationFailure(description: "auth: an object with a uid, or null")
            }
            auth = StorageRuleAuth(uid: uid, token: StorageRulesValue(json["token"] ?? .object([])))
        }
        let stored = path.isEmpty ? nil : try? await readAsAdmin(bucket: bucket, name: path)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var proposed: StorageObjectFacts?
        if method == .create || method == .update {
            var facts =
                stored.map { StorageRulesState.facts($0, proposed: true) }
                ?? StorageObjectFacts(name: path, bucket: bucket, size: 0)
            let given = request["resource"]
            if case .string(let contentType)? = given?["contentType"] { facts.contentType = contentType }
            if case .number(let size)? = given?["size"], let bytes = Int64(exactly: size.doubleValue) { facts.size = bytes }
            if case .object(let members)? = given?["metadata"] {
                facts.metadata = [:]
                for member in members {
                    guard case .string(let value) = member.value else {
                        throw StorageRulesSimulationFailure(description: "resource.metadata: values must be strings")
                    }
                    facts.metadata[member.key] = value
                }
            }
            proposed = facts
        }
        let ruleRequest = StorageRuleRequest(
            method: method, bucket: bucket, objectPath: path, auth: auth,
            resource: stored.map { StorageRulesState.facts($0, proposed: false) }, requestResource: proposed,
            time: Date(timeIntervalSince1970: Double(now) / 1000))
        let decision = rules.decide(ruleRequest)
        let explanation = decision?.explanation ?? ["no storage rules are in force: every request is refused"]
        return .object([
            JSONMember(key: "allowed", value: .bool(decision?.isAllowed ?? false)),
            JSONMember(key: "explanation", value: .array(explanation.map(JSONValue.string))),
        ])
    }
}
