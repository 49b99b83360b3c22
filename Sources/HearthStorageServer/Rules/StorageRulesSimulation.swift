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
    ///
    /// `{method: "readable", bucket, paths: [...], auth}` judges instead whether `auth` may read
    /// (`get`) each file: `{paths: {"a/b.png": {allowed, reason?}}}`, for the Storage view "as a
    /// user"; `reason` is the last rule evaluated.
    package func simulateRules(_ request: JSONValue) async throws(StorageRulesSimulationFailure) -> JSONValue {
        guard case .string(let bucket)? = request["bucket"], !bucket.isEmpty else {
            throw StorageRulesSimulationFailure(description: "bucket: required")
        }
        let auth = try Self.auth(request["auth"])
        if request["method"] == .string("readable") {
            guard case .array(let items)? = request["paths"], items.count <= Self.readableLimit else {
                throw StorageRulesSimulationFailure(description: "paths: an array of at most \(Self.readableLimit) file paths")
            }
            var verdicts: [JSONMember] = []
            for item in items {
                guard case .string(let path) = item else { continue }
                let decision = try await decide(.get, bucket: bucket, path: path, auth: auth, given: nil)
                var verdict = [JSONMember(key: "allowed", value: .bool(decision.allowed))]
                if !decision.allowed, let reason = decision.explanation.last {
                    verdict.append(JSONMember(key: "reason", value: .string(reason)))
                }
                verdicts.append(JSONMember(key: path, value: .object(verdict)))
            }
            return .object([JSONMember(key: "paths", value: .object(verdicts))])
        }
        guard case .string(let methodName)? = request["method"], let method = StorageRuleMethod(rawValue: methodName) else {
            throw StorageRulesSimulationFailure(description: "method: must be get, list, create, update or delete")
        }
        var path = ""
        if case .string(let text)? = request["path"] { path = text }
        let decision = try await decide(method, bucket: bucket, path: path, auth: auth, given: request["resource"])
        return .object([
            JSONMember(key: "allowed", value: .bool(decision.allowed)),
            JSONMember(key: "explanation", value: .array(decision.explanation.map(JSONValue.string))),
        ])
    }

    /// The most files judged at once.
    static let readableLimit = 500

    /// `request.auth` of a simulation: `{uid, token}`, or null for a signed-out caller.
    private static func auth(_ json: JSONValue?) throws(StorageRulesSimulationFailure) -> StorageRuleAuth? {
        guard let json, json != .null else { return nil }
        guard case .string(let uid)? = json["uid"] else {
            throw StorageRulesSimulationFailure(description: "auth: an object with a uid, or null")
        }
        return StorageRuleAuth(uid: uid, token: StorageRulesValue(json["token"] ?? .object([])))
    }

    /// How the rules in force decide `method` of the file at `path`, with the fields `given` for
    /// the file a create or update would leave.
    private func decide(
        _ method: StorageRuleMethod, bucket: String, path text: String, auth: StorageRuleAuth?, given: JSONValue?
    ) async throws(StorageRulesSimulationFailure) -> (allowed: Bool, explanation: [String]) {
        let path = String(text.drop { $0 == "/" })
        let stored = path.isEmpty ? nil : try? await readAsAdmin(bucket: bucket, name: path)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var proposed: StorageObjectFacts?
        if method == .create || method == .update {
            var facts =
                stored.map { StorageRulesState.facts($0, proposed: true) }
                ?? StorageObjectFacts(name: path, bucket: bucket, size: 0)
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
        guard let decision = rules.decide(ruleRequest) else {
            return (false, ["no storage rules are in force: every request is refused"])
        }
        return (decision.isAllowed, decision.explanation)
    }
}
