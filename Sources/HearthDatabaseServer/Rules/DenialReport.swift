import HearthCore
import HearthRules

/// A database operation refused by rules, as the console's requests feed shows it: where, for
/// whom, every rule evaluated, and what the playground needs to replay it.
struct DenialReport {
    let namespace: String
    /// `read` or `write`.
    let operation: String
    let paths: [DatabasePath]
    let auth: JSONValue
    let decision: RuleDecision
    /// The refused write; `nil` for a read.
    let write: QueuedWrite?

    /// Written values past this many bytes are not carried for a replay.
    static let replayValueLimit = 64 * 1024

    /// `{product, namespace, operation, paths, auth, allowed, evaluations, replay}`.
    var json: JSONValue {
        guard case .object(var members) = decision.json else { return .null }
        members.insert(
            contentsOf: [
                JSONMember(key: "product", value: .string("database")),
                JSONMember(key: "namespace", value: .string(namespace)),
                JSONMember(key: "operation", value: .string(operation)),
                JSONMember(key: "paths", value: .array(paths.map { .string($0.description) })),
                JSONMember(key: "auth", value: auth),
            ], at: 0)
        members.append(JSONMember(key: "replay", value: replay))
        return .object(members)
    }

    /// `{operation: read | set | update, path, value?}`: the playground's fields. A value too
    /// large to carry is left out (`value` absent, `valueOmitted: true`).
    private var replay: JSONValue {
        guard let write else {
            return .object([
                JSONMember(key: "operation", value: .string("read")),
                JSONMember(key: "path", value: .string(paths.first?.description ?? "/")),
            ])
        }
        var writer = JSONWriter(byteLimit: Self.replayValueLimit)
        let operation: String
        switch write.kind {
        case .set(let value):
            operation = "set"
            writer.write(value)
        case .update(let entries):
            operation = "update"
            var scope = writer.beginObject()
            for (path, value) in entries where !writer.isPastLimit {
                writer.writeKey(path.slashless, in: &scope)
                writer.write(value)
            }
            writer.endObject(scope)
        }
        var members = [
            JSONMember(key: "operation", value: .string(operation)),
            JSONMember(key: "path", value: .string(write.path.description)),
        ]
        if writer.isPastLimit {
            members.append(JSONMember(key: "valueOmitted", value: .bool(true)))
        } else {
            members.append(JSONMember(key: "value", value: .string(String(decoding: writer.bytes, as: UTF8.self))))
        }
        return .object(members)
    }
}

extension JSONWriter {
    /// Writes a write's value as its client sent it.
    fileprivate mutating func write(_ value: WriteValue) {
        switch value {
        case .node(let node): write(node, .export)
        case .json(let json): write(json)
        }
    }
}
