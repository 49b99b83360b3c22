import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStorageRules
import HearthStorageServer

/// `hearth storage:rules-test`: evaluates one Storage request against a `storage.rules` file and
/// says which `allow` statements decided it. Exits with 0 when the request is allowed and 1
/// when it is denied.
struct StorageRulesTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage:rules-test",
        abstract: "Evaluate a Storage request against storage rules and explain the outcome.",
        discussion: """
            Uploads are 'create' (also over an existing file), metadata changes 'update'. Example: \
            hearth storage:rules-test --method create --path users/alice/a.png --auth '{"uid":"alice"}' \
            --request-resource '{"size":1024,"contentType":"image/png"}'
            """)

    @Option(help: "The rules file (default: the one firebase.json in this directory names under storage.rules).")
    var rules: String?

    @Option(help: "get, list, create, update or delete.")
    var method: String

    @Option(help: "The object's name (for list, the prefix without its trailing slash).")
    var path: String

    @Option(help: "The bucket.")
    var bucket = "demo-project.appspot.com"

    @Option(help: "request.auth as JSON: {\"uid\": …, \"token\": {claims}}; null is a signed-out caller.")
    var auth = "null"

    @Option(help: "The stored object (resource) as metadata JSON: size, contentType, metadata, md5Hash, timeCreated, …")
    var resource: String?

    @Option(help: "The object as the request would leave it (request.resource), as metadata JSON.")
    var requestResource: String?

    @Option(help: "request.params as JSON, such as {\"alt\":\"media\"}.")
    var params = "{}"

    func run() throws {
        let ruleset = try loadRules()
        for warning in ruleset.warnings { print("warning: \(warning)") }
        guard let method = StorageRuleMethod(rawValue: method) else {
            throw ValidationError("--method must be get, list, create, update or delete")
        }
        var parameters: [String: String] = [:]
        guard case .object(let members) = try json(params, "--params") else { throw ValidationError("--params must be a JSON object") }
        for member in members {
            guard case .string(let value) = member.value else { throw ValidationError("--params values must be strings") }
            parameters[member.key] = value
        }
        let request = StorageRuleRequest(
            method: method, bucket: bucket, objectPath: path, auth: try callerAuth(),
            resource: try resource.map { try object($0, "--resource", stored: true) },
            requestResource: try requestResource.map { try object($0, "--request-resource", stored: false) },
            params: parameters)
        let decision = ruleset.evaluate(request)
        print(decision.isAllowed ? "ALLOWED" : "DENIED")
        for line in decision.explanation { print("  \(line)") }
        if !decision.isAllowed { throw ExitCode.failure }
    }

    private func loadRules() throws -> StorageRuleset {
        let directory = FileManager.default.currentDirectoryPath
        guard let file = try rules.map(StorageRulesFile.init(path:)) ?? StorageRulesFile.named(byProjectIn: directory) else {
            throw ValidationError("no storage rules file: pass --rules or run where firebase.json names one")
        }
        return try file.load()
    }

    private func callerAuth() throws -> StorageRuleAuth? {
        let value = try json(auth, "--auth")
        if value == .null { return nil }
        guard case .object = value else { throw ValidationError("--auth must be a JSON object or null") }
        var uid: String?
        if case .string(let given)? = value["uid"] { uid = given }
        return StorageRuleAuth(uid: uid, token: value["token"].map(StorageRulesValue.init) ?? .map([:]))
    }

    /// Object metadata JSON as rules see it; a proposed object has no generations, etag or times.
    private func object(_ text: String, _ option: String, stored: Bool) throws -> StorageObjectFacts {
        let value = try json(text, option)
        func string(_ key: String) throws -> String? {
            switch value[key] {
            case nil, .null?: return nil
            case .string(let string)?: return string
            default: throw ValidationError("\(option): \(key) must be a string")
            }
        }
        func integer(_ key: String) throws -> Int64? {
            switch value[key] {
            case nil: return nil
            case .number(.int(let number))?: return number
            case .string(let text)?:
                guard let number = Int64(text) else { throw ValidationError("\(option): \(key) must be an integer") }
                return number
            default: throw ValidationError("\(option): \(key) must be an integer")
            }
        }
        func date(_ key: String) throws -> Date? {
            guard let text = try string(key) else { return stored ? Date() : nil }
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw ValidationError("\(option): \(key) must be a time such as 2024-05-01T12:00:00Z")
            }
            return date
        }
        var metadata: [String: String] = [:]
        if case .object(let members)? = value["metadata"] {
            for member in members {
                guard case .string(let entry) = member.value else { throw ValidationError("\(option): metadata values must be strings") }
                metadata[member.key] = entry
            }
        }
        return StorageObjectFacts(
            name: path, bucket: bucket, generation: stored ? try integer("generation") ?? 1 : nil,
            metageneration: stored ? try integer("metageneration") ?? 1 : nil, size: try integer("size") ?? 0,
            timeCreated: stored ? try date("timeCreated") : nil, updated: stored ? try date("updated") : nil,
            md5Hash: try string("md5Hash"), crc32c: try string("crc32c"), etag: stored ? try string("etag") : nil,
            contentType: try string("contentType"), contentDisposition: try string("contentDisposition"),
            contentEncoding: try string("contentEncoding"), contentLanguage: try string("contentLanguage"), metadata: metadata)
    }

    private func json(_ text: String, _ option: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw ValidationError("\(option): \(error)")
        }
    }
}
