import Crypto
import HearthCore
import HearthEdge

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a decision's token carries: the ad shown, to whom, and until when its events count.
/// Signed with HMAC-SHA256 under the server's ads key, so that a client can neither forge one
/// nor change what it says; its `id` makes each (token, event type) count once.
struct AdToken: Equatable, Sendable {
    /// The decision's id (``AdsService/tokenID(at:)``).
    var id: String
    var campaignID: String
    var creativeID: String
    var adUnitID: String
    var viewerKey: String?
    /// When its events stop counting, in milliseconds since 1970.
    var expiresAt: Int64

    /// How long after a decision its events count.
    static let lifetimeMilliseconds: Int64 = 60 * 60 * 1000

    /// `base64url(JSON).base64url(HMAC)`.
    func signed(with key: SymmetricKey) -> String {
        var members: [JSONMember] = [
            JSONMember(key: "id", value: .string(id)), JSONMember(key: "campaignID", value: .string(campaignID)),
            JSONMember(key: "creativeID", value: .string(creativeID)), JSONMember(key: "adUnitID", value: .string(adUnitID)),
            JSONMember(key: "expiresAt", value: .number(.int(expiresAt))),
        ]
        if let viewerKey { members.append(JSONMember(key: "viewerKey", value: .string(viewerKey))) }
        let payload = Base64URL.encode(Array(JSONWriter.string(.object(members)).utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Array(payload.utf8), using: key)
        return payload + "." + Base64URL.encode(Array(mac))
    }

    /// Why a token presented with an event was refused.
    enum Refusal: Error, Equatable {
        case forged
        case expired(AdToken)
    }

    /// The token `text` says, if its signature is the server's and it has not expired at `now`.
    static func verify(_ text: String, with key: SymmetricKey, now: Int64) throws(Refusal) -> AdToken {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, text.utf8.count <= 8192, let mac = Base64URL.decode(String(parts[1])),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Array(parts[0].utf8), using: key),
            let payload = Base64URL.decode(String(parts[0])), let token = try? Self(payload: payload)
        else { throw .forged }
        guard now < token.expiresAt else { throw .expired(token) }
        return token
    }
}

extension AdToken {
    /// The token a payload the server signed says.
    fileprivate init(payload: [UInt8]) throws {
        let fields = try JSONFields(try JSONParser.parse(payload))
        id = try fields.requiredString("id")
        campaignID = try fields.requiredString("campaignID")
        creativeID = try fields.requiredString("creativeID")
        adUnitID = try fields.requiredString("adUnitID")
        viewerKey = try fields.string("viewerKey")
        expiresAt = Int64(try fields.requiredInt("expiresAt"))
    }
}
