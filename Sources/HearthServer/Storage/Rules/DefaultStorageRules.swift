#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The storage rules language (parser and evaluator) is not built yet. Until it is, Storage
// enforces only its two default rulesets, recognised by their exact text: the open rules of
// development and the signed-in rules of production. Any other rules are refused when they are
// loaded, so that no rules file is ever silently ignored.

/// A value rules see (the claims of an ID token).
public enum RulesValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case list([RulesValue])
    case map([String: RulesValue])
}

/// The operations rules decide on (spec storage-api §12).
public enum StorageRuleMethod: String, Sendable { case get, list, create, update, delete }

/// `request.auth`: the uid and the token's claims.
public struct StorageRuleAuth: Sendable {
    public var uid: String?
    public var token: RulesValue
}

/// An object as rules see it (`resource`, `request.resource`).
public struct StorageObjectFacts: Sendable {
    var name: String
    var bucket: String
    var generation: Int64?
    var metageneration: Int64?
    var size: Int64
    var timeCreated: Date?
    var updated: Date?
    var md5Hash: String?
    var crc32c: String?
    var etag: String?
    var contentType: String?
    var contentDisposition: String?
    var contentEncoding: String?
    var contentLanguage: String?
    var metadata: [String: String]
}

/// One request put to the rules.
public struct StorageRuleRequest: Sendable {
    var method: StorageRuleMethod
    var bucket: String
    var objectPath: String
    var auth: StorageRuleAuth?
    var resource: StorageObjectFacts?
    var requestResource: StorageObjectFacts?
    var time: Date
    var params: [String: String]
}

/// Whether rules allowed a request, and why.
public struct StorageRuleDecision: Sendable {
    public var isAllowed: Bool
    public var explanation: [String]
}

/// Rules Hearth cannot enforce yet.
public struct StorageRulesError: Error, CustomStringConvertible {
    public var description: String {
        "custom storage rules are not supported yet: only the default rules (open in development, sign-in required in production) are enforced"
    }
}

/// The storage rules in force: one of the two defaults.
public struct StorageRuleset: Sendable {
    private let requiresSignIn: Bool

    public init(source: String) throws(StorageRulesError) {
        switch source {
        case StorageRulesState.openSource: requiresSignIn = false
        case StorageRulesState.signedInSource: requiresSignIn = true
        default: throw StorageRulesError()
        }
    }

    public func evaluate(_ request: StorageRuleRequest) -> StorageRuleDecision {
        guard requiresSignIn else { return StorageRuleDecision(isAllowed: true, explanation: ["allow read, write (open rules)"]) }
        let allowed = request.auth != nil
        return StorageRuleDecision(
            isAllowed: allowed, explanation: ["allow read, write: if request.auth != null -> \(allowed)"])
    }
}
