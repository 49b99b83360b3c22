import CryptoExtras
import HearthCore
import JWTKit
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The public half of an issued service-account key: who signs with it, and how to check.
struct ServiceAccountKey: Sendable, Equatable {
    var keyID: String
    var clientEmail: String
    var publicKeyPEM: String
    var createdAt: Int64
}

/// Service accounts: the admin identity of production. `hearth auth:service-account` issues a
/// Google-style JSON key file; its holder signs custom tokens with it, and exchanges signed
/// assertions for OAuth2 access tokens at the file's `token_uri` (the JWT-bearer grant Google's
/// auth libraries perform). Hearth keeps only the public keys.
public struct ServiceAccounts: Sendable {
    let store: any AuthStore

    /// The service accounts of the store at `location`.
    package static func open(_ location: AuthStoreLocation, logger: Logger) async throws -> ServiceAccounts {
        ServiceAccounts(store: try await location.open(logger: logger))
    }

    public func close() async {
        await store.close()
    }

    /// The path of the token endpoint on Hearth's port.
    public static let tokenPath = "/oauth2.googleapis.com/token"

    /// Issues a new key for project `projectID` and returns the key file's JSON text; the private
    /// key exists only in that text. `serverURL` is where clients reach Hearth (`token_uri`).
    public func issue(projectID: String, serverURL: String, now: Int64) async throws -> String {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let keyID = Hex.encode((0..<20).map { _ in UInt8.random(in: 0...255) })
        let clientEmail = "hearth-admin@\(projectID).iam.gserviceaccount.com"
        try await store.addServiceAccountKey(
            ServiceAccountKey(
                keyID: keyID, clientEmail: clientEmail, publicKeyPEM: privateKey.publicKey.pemRepresentation, createdAt: now))
        let base = serverURL.hasSuffix("/") ? String(serverURL.dropLast()) : serverURL
        let file = JSONValue.object([
            JSONMember(key: "type", value: .string("service_account")),
            JSONMember(key: "project_id", value: .string(projectID)),
            JSONMember(key: "private_key_id", value: .string(keyID)),
            JSONMember(key: "private_key", value: .string(privateKey.pkcs8PEMRepresentation + "\n")),
            JSONMember(key: "client_email", value: .string(clientEmail)),
            JSONMember(key: "client_id", value: .string(String(UInt64.random(in: 100_000_000_000...999_999_999_999)))),
            JSONMember(key: "auth_uri", value: .string("\(base)/accounts.google.com/o/oauth2/auth")),
            JSONMember(key: "token_uri", value: .string(base + Self.tokenPath)),
            JSONMember(
                key: "auth_provider_x509_cert_url", value: .string("\(base)/www.googleapis.com/oauth2/v1/certs")),
            JSONMember(
                key: "client_x509_cert_url",
                value: .string("\(base)/www.googleapis.com/robot/v1/metadata/x509/\(clientEmail)")),
        ])
        return JSONWriter.string(file, pretty: true) + "\n"
    }

    /// Revokes key `keyID` (the file's `private_key_id`): its access tokens and custom tokens stop
    /// working at once. Whether it existed.
    public func revoke(keyID: String) async throws -> Bool {
        try await store.removeServiceAccountKey(keyID)
    }

    /// The claims of `token` if an issued service-account key signed it (RS256, found by the
    /// header's `kid`, else by `iss`), together with that key; `nil` otherwise.
    func verify(_ token: String) async -> (JWTClaims, ServiceAccountKey)? {
        guard let (header, claims) = UnverifiedJWT.decode(token), header["alg"] == .string("RS256"),
            let keys = try? await store.serviceAccountKeys()
        else { return nil }
        let candidates: [ServiceAccountKey]
        if case .string(let kid)? = header["kid"] {
            candidates = keys.filter { $0.keyID == kid }
        } else {
            candidates = keys.filter { $0.clientEmail == claims.string("iss") }
        }
        for key in candidates {
            let collection = JWTKeyCollection()
            guard let publicKey = try? Insecure.RSA.PublicKey(pem: key.publicKeyPEM) else { continue }
            await collection.add(rsa: publicKey, digestAlgorithm: .sha256)
            if let verified = try? await collection.verify(token, as: JWTClaims.self) { return (verified, key) }
        }
        return nil
    }
}
