import HearthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Whom a realtime connection acts for (protocol §5.2).
enum RealtimeIdentity: Sendable, Equatable {
    /// No credential: rules see `auth == null`.
    case unauthenticated
    /// The `owner` credential: rules are bypassed.
    case admin
    /// A user, or an admin acting as one (`authvar`): rules see this `auth` variable.
    case user(auth: JSONValue)

    /// What rules see as `auth`, as sent back in the auth response.
    var authVariable: JSONValue {
        switch self {
        case .unauthenticated, .admin: .null
        case .user(let auth): auth
        }
    }

    /// The identity an `auth`/`gauth` request establishes, with its expiry in seconds since
    /// 1970, or `nil` when the credential cannot be read.
    ///
    /// `owner` is the admin credential, as in the Firebase emulator; with `authvar` it acts as
    /// that auth variable and with `noauth` as nobody. A JWT is read without verifying its
    /// signature, as the emulator reads its unsigned mock tokens: rules see its claims.
    static func from(credential: String, authvar: JSONValue?, noauth: Bool, now: Int64) -> (RealtimeIdentity, expires: Int64)? {
        let hourFromNow = now / 1000 + 3600
        if credential == "owner" {
            if noauth { return (.unauthenticated, hourFromNow) }
            if let authvar, authvar != .null { return (.user(auth: authvar), hourFromNow) }
            return (.admin, hourFromNow)
        }
        guard let claims = unverifiedClaims(of: credential) else { return nil }
        let uid = claims["sub"] ?? claims["user_id"] ?? .null
        let provider = claims["firebase"]?["sign_in_provider"] ?? .string("custom")
        let auth = JSONValue.object([
            JSONMember(key: "uid", value: uid),
            JSONMember(key: "provider", value: provider),
            JSONMember(key: "token", value: claims),
        ])
        var expires = hourFromNow
        if case .number(let exp)? = claims["exp"] { expires = Int64(exp.doubleValue) }
        return (.user(auth: auth), expires)
    }

    /// The claims of a JWT (`header.payload.signature`, base64url), if it is one whose payload
    /// is a JSON object with a subject.
    private static func unverifiedClaims(of token: String) -> JSONValue? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = base64URLDecoded(parts[1]),
            let claims = try? JSONParser.parse(Array(payload)), case .object = claims,
            case .string? = claims["sub"] ?? claims["user_id"]
        else { return nil }
        return claims
    }

    private static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
