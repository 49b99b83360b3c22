import HearthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Credentials as the Firebase emulator reads them, for REST requests and realtime `auth`.
extension Caller {
    /// What rules see as `auth`, as sent back in a realtime auth response.
    var authVariable: JSONValue {
        switch self {
        case .admin: .null
        case .client(let auth): auth
        }
    }

    /// The caller a credential establishes, with its expiry in seconds since 1970, or `nil`
    /// when the credential cannot be read.
    ///
    /// `owner` is the admin credential, as in the Firebase emulator; with `authvar` it acts as
    /// that auth variable and with `noauth` as nobody. A JWT is read without verifying its
    /// signature, as the emulator reads its unsigned mock tokens: rules see its claims.
    static func from(credential: String, authvar: JSONValue?, noauth: Bool, now: Int64) -> (Caller, expires: Int64)? {
        let hourFromNow = now / 1000 + 3600
        if credential == "owner" {
            if noauth { return (.signedOut, hourFromNow) }
            if let authvar, authvar != .null { return (.client(auth: authvar), hourFromNow) }
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
        return (.client(auth: auth), expires)
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
