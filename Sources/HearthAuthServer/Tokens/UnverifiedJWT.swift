import HearthCore
import HearthEdge

/// JWTs read without checking a signature, and minted without one (`alg: none`), as the Firebase
/// emulators do in development.
enum UnverifiedJWT {
    /// `{"alg":"none","typ":"JWT"}.<claims>.` — an unsigned token, ending with the empty signature.
    static func unsigned(_ claims: JSONValue) -> String {
        let header = JSONWriter.string(
            .object([JSONMember(key: "alg", value: .string("none")), JSONMember(key: "typ", value: .string("JWT"))]))
        return "\(Base64URL.encode(header.utf8)).\(Base64URL.encode(JSONWriter.string(claims).utf8))."
    }

    /// The header of a compact JWT, decoded alone (it is short: a cheap look at what a token is).
    static func header(of token: String) -> JSONValue? {
        guard let end = token.firstIndex(of: "."), let bytes = Base64URL.decode(token[..<end]),
            let header = try? JSONParser.parse(bytes), case .object = header
        else { return nil }
        return header
    }

    /// The header and claims of a compact JWT (three dot-separated segments whose first two are
    /// base64url JSON objects), whatever its signature; `nil` if it is not one.
    static func decode(_ token: String) -> (header: JSONValue, claims: JWTClaims)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
            let header = try? JSONParser.parse(headerBytes), case .object = header,
            let claims = try? JSONParser.parse(payloadBytes), case .object = claims
        else { return nil }
        return (header, JWTClaims(claims))
    }
}
