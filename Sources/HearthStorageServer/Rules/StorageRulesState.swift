import HearthCore
import HearthEdge
import HearthStorageRules
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The storage rules in force: a file's, ones set through `/internal/setRules`, or the mode's
/// default; or none at all after rules that failed to compile were set, when every request is
/// refused (spec storage-api §1.6, §16).
///
/// In development every denial is logged with the `allow` statements evaluated and why each
/// did not grant; in every mode each denial is counted, and reported to the requests feed while
/// it is followed.
package final class StorageRulesState: Sendable {
    private let current: Mutex<StorageRuleset?>
    private let explainsDenials: Bool
    private let denials: DenialTally?
    private let logger: Logger

    package init(initial: StorageRuleset?, explainsDenials: Bool, denials: DenialTally? = nil, logger: Logger) {
        self.current = Mutex(initial)
        self.explainsDenials = explainsDenials
        self.denials = denials
        self.logger = logger
    }

    /// Rules that allow everything (development without a rules file, as the emulator's
    /// `demo-` projects).
    package static let openSource = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /{allPaths=**} {
              allow read, write;
            }
          }
        }
        """

    /// Rules that require a signed-in user (production without a rules file).
    package static let signedInSource = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /{allPaths=**} {
              allow read, write: if request.auth != null;
            }
          }
        }
        """

    /// Puts `ruleset` in force; `nil` leaves no rules, refusing everything.
    package func replace(with ruleset: StorageRuleset?) {
        current.withLock { $0 = ruleset }
    }

    /// Whether any rules are in force.
    var isLoaded: Bool {
        current.withLock { $0 != nil }
    }

    /// The rules in force as written; `nil` when none are.
    package var source: String? {
        current.withLock { $0?.source }
    }

    /// How the rules in force decide `request`; `nil` when none are in force.
    func decide(_ request: StorageRuleRequest) -> StorageRuleDecision? {
        current.withLock { $0 }?.evaluate(request)
    }

    /// Refuses `check` by `caller` unless the rules in force allow it.
    func authorize(caller: StorageCaller, _ check: StorageRuleCheck, now: Int64) throws(StorageError) {
        guard let ruleset = current.withLock({ $0 }) else { throw .noRuleset }
        let decision = ruleset.evaluate(Self.request(check, caller: caller, now: now))
        guard !decision.isAllowed else { return }
        denials?.count(product: "storage", path: "/b/\(check.bucket)/o/\(check.path)")
        RequestTrace.current?.noteDenial(StorageDenialReport(check: check, caller: caller, decision: decision).json)
        if explainsDenials {
            logger.notice(
                "storage rules denied \(check.method.rawValue) of /b/\(logSafe: check.bucket)/o/\(logSafe: check.path)",
                metadata: ["evaluated": "\(logSafe: decision.explanation.joined(separator: "; "))"])
        }
        throw .permissionDenied(permission: check.permission)
    }

    /// The rules request for `check`.
    static func request(_ check: StorageRuleCheck, caller: StorageCaller, now: Int64) -> StorageRuleRequest {
        StorageRuleRequest(
            method: check.method, bucket: check.bucket, objectPath: check.path, auth: auth(of: caller),
            resource: check.resource.map { facts($0, proposed: false) },
            requestResource: check.requestResource.map { facts($0, proposed: true) },
            time: Date(timeIntervalSince1970: Double(now) / 1000), params: check.params)
    }

    private static func auth(of caller: StorageCaller) -> StorageRuleAuth? {
        guard case .user(let uid, let claims) = caller else { return nil }
        let token = (try? JSONParser.parse(claims)).map(StorageRulesValue.init) ?? .map([:])
        return StorageRuleAuth(uid: uid, token: token)
    }

    /// The rules view of an object; a proposed one (`request.resource`) lacks the fields an
    /// upload or change has not fixed yet (§14.2), and the digests too while its bytes have not
    /// arrived (a resumable start, whose object has an empty `md5`).
    static func facts(_ object: StoredObject, proposed: Bool) -> StorageObjectFacts {
        let digested = !object.md5.isEmpty
        return StorageObjectFacts(
            name: object.name, bucket: object.bucket,
            generation: proposed ? nil : object.generation,
            metageneration: proposed ? nil : object.metageneration,
            size: object.size,
            timeCreated: proposed ? nil : Date(timeIntervalSince1970: Double(object.timeCreated) / 1000),
            updated: proposed ? nil : Date(timeIntervalSince1970: Double(object.updated) / 1000),
            md5Hash: digested ? Base64URL.standard(object.md5) : nil, crc32c: digested ? CRC32C.base64(object.crc32c) : nil,
            etag: proposed ? nil : object.etag,
            contentType: object.contentType, contentDisposition: object.contentDisposition,
            contentEncoding: object.contentEncoding, contentLanguage: object.contentLanguage,
            metadata: object.metadata)
    }
}
