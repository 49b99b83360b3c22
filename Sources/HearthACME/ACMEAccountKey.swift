import Crypto
import HearthEdge

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The key of an ACME account (P-256, ES256): it signs every request as a JWS (RFC 8555 §6.2)
/// and its thumbprint (RFC 7638) ends every key authorization.
struct ACMEAccountKey: Sendable {
    let key: P256.Signing.PrivateKey

    /// The public key as a JWK, its members in the order the thumbprint needs.
    var jwk: JWK {
        let raw = key.publicKey.rawRepresentation
        return JWK(crv: "P-256", kty: "EC", x: Base64URL.encode(raw.prefix(32)), y: Base64URL.encode(raw.suffix(32)))
    }

    /// The base64url SHA-256 of the JWK's members in lexicographic order, without spaces.
    var thumbprint: String {
        let jwk = self.jwk
        let canonical = #"{"crv":"\#(jwk.crv)","kty":"\#(jwk.kty)","x":"\#(jwk.x)","y":"\#(jwk.y)"}"#
        return Base64URL.encode(Array(SHA256.hash(data: Data(canonical.utf8))))
    }

    /// The key authorization of a challenge's `token` (RFC 8555 §8.1).
    func keyAuthorization(of token: String) -> String {
        "\(token).\(thumbprint)"
    }

    /// A flattened JWS of `payload` (`nil`: a POST-as-GET's empty payload) for `url`, naming
    /// the account by `accountURL` or, before it has one, by its JWK.
    func sign(_ payload: Data?, url: String, nonce: String, accountURL: String?) throws -> Data {
        let header = ProtectedHeader(alg: "ES256", nonce: nonce, url: url, jwk: accountURL == nil ? jwk : nil, kid: accountURL)
        let protected = Base64URL.encode(try JSONEncoder().encode(header))
        let body = payload.map(Base64URL.encode) ?? ""
        let signature = try key.signature(for: Data("\(protected).\(body)".utf8))
        return try JSONEncoder().encode(
            FlattenedJWS(protected: protected, payload: body, signature: Base64URL.encode(signature.rawRepresentation)))
    }

    /// An EC public key as a JWK (RFC 7517).
    struct JWK: Codable, Equatable {
        let crv: String
        let kty: String
        let x: String
        let y: String
    }

    private struct ProtectedHeader: Encodable {
        let alg: String
        let nonce: String
        let url: String
        let jwk: JWK?
        let kid: String?
    }

    private struct FlattenedJWS: Encodable {
        let protected: String
        let payload: String
        let signature: String
    }
}
