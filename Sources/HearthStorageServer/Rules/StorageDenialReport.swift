import HearthCore
import HearthStorageRules

/// A Storage request refused by rules, as the console's requests feed shows it: what was
/// asked, by whom, each `allow` statement evaluated, and what the playground needs to replay it.
struct StorageDenialReport {
    let check: StorageRuleCheck
    let caller: StorageCaller
    let decision: StorageRuleDecision

    /// `{product, operation, bucket, paths, auth, explanation, replay: {method, bucket, path,
    /// auth, resource?}}`.
    var json: JSONValue {
        .object([
            JSONMember(key: "product", value: .string("storage")),
            JSONMember(key: "operation", value: .string(check.method.rawValue)),
            JSONMember(key: "bucket", value: .string(check.bucket)),
            JSONMember(key: "paths", value: .array([.string(check.path)])),
            JSONMember(key: "auth", value: auth),
            JSONMember(key: "explanation", value: .array(decision.explanation.map(JSONValue.string))),
            JSONMember(key: "replay", value: replay),
        ])
    }

    /// `request.auth` as JSON: `{uid, token}`, or null when signed out.
    private var auth: JSONValue {
        guard case .user(let uid, let claims) = caller else { return .null }
        return .object([
            JSONMember(key: "uid", value: .string(uid)),
            JSONMember(key: "token", value: (try? JSONParser.parse(claims)) ?? .object([])),
        ])
    }

    /// The playground's fields: the method, the file, and the file as the request would leave it.
    private var replay: JSONValue {
        var members = [
            JSONMember(key: "method", value: .string(check.method.rawValue)),
            JSONMember(key: "bucket", value: .string(check.bucket)),
            JSONMember(key: "path", value: .string(check.path)),
        ]
        if let proposed = check.requestResource {
            var resource = [
                JSONMember(key: "size", value: .number(.int(proposed.size))),
                JSONMember(
                    key: "metadata",
                    value: .object(proposed.metadata.sorted { $0.key < $1.key }.map { JSONMember(key: $0.key, value: .string($0.value)) })),
            ]
            if let contentType = proposed.contentType {
                resource.append(JSONMember(key: "contentType", value: .string(contentType)))
            }
            members.append(JSONMember(key: "resource", value: .object(resource)))
        }
        return .object(members)
    }
}
