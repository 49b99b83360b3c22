import Crypto
import CryptoExtras
import Foundation

/// A service-account key file: the account's email, its RSA private key, and where to trade
/// signed assertions for access tokens.
struct ServiceAccountKey: Sendable {
    let clientEmail: String
    let keyID: String
    let tokenURI: String
    let privateKey: _RSA.Signing.PrivateKey

    init(file: String) throws {
        guard let data = FileManager.default.contents(atPath: file),
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let clientEmail = json["client_email"] as? String, let pem = json["private_key"] as? String,
            let tokenURI = json["token_uri"] as? String
        else { throw AdminError("invalid-credential", "\(file) is not a service-account key file") }
        self.clientEmail = clientEmail
        keyID = json["private_key_id"] as? String ?? ""
        self.tokenURI = tokenURI
        privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
    }

    /// A JWT of `claims` signed with the key (RS256).
    func sign(_ claims: [String: Any]) throws -> String {
        let header = JWT.segment(["alg": "RS256", "typ": "JWT", "kid": keyID])
        let input = header + "." + JWT.segment(claims)
        let signature = try privateKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + JWT.base64URL(signature.rawRepresentation)
    }
}

/// JSON Web Token pieces.
enum JWT {
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    static func segment(_ object: [String: Any]) -> String {
        base64URL((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    /// An unsigned token (`alg: none`), as Admin SDKs make custom tokens for the emulators.
    static func unsigned(_ claims: [String: Any]) -> String {
        segment(["alg": "none", "typ": "JWT"]) + "." + segment(claims) + "."
    }

    /// The header and claims of `token`, and what its signature covers.
    static func parts(_ token: String) -> (header: [String: Any], claims: [String: Any], signingInput: String, signature: Data)? {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3, let headerData = decode(pieces[0]), let claimsData = decode(pieces[1]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
        else { return nil }
        return (header, claims, "\(pieces[0]).\(pieces[1])", decode(pieces[2]) ?? Data())
    }
}
