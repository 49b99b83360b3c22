import Crypto
import HearthEdge
import NIOSSL
import SwiftASN1
import X509

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The self-signed certificate a TLS-ALPN-01 validation expects (RFC 8737 §3): for the name
/// alone, with the critical `acmeIdentifier` extension holding the SHA-256 of the key
/// authorization, served with ALPN `acme-tls/1`.
enum ChallengeCertificate {
    /// id-pe-acmeIdentifier.
    static let acmeIdentifier: ASN1ObjectIdentifier = [1, 3, 6, 1, 5, 5, 7, 1, 31]

    /// A TLS context serving the challenge certificate of `name` for `keyAuthorization`.
    static func context(name: String, keyAuthorization: String) throws -> NIOSSLContext {
        let key = P256.Signing.PrivateKey()
        var serialized = DER.Serializer()
        try serialized.serialize(try certificate(name: name, keyAuthorization: keyAuthorization, key: key))
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: serialized.serializedBytes, format: .der))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.derRepresentation), format: .der)))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = [ACMEChallengeResponses.applicationProtocol]
        return try NIOSSLContext(configuration: configuration)
    }

    /// The challenge certificate of `name` for `keyAuthorization`, signed by its own `key`.
    static func certificate(name: String, keyAuthorization: String, key: P256.Signing.PrivateKey, now: Date = Date()) throws -> Certificate
    {
        var digest = DER.Serializer()
        try digest.serialize(ASN1OctetString(contentBytes: ArraySlice(SHA256.hash(data: Data(keyAuthorization.utf8)))))
        let subject = try CertificateOrder.subject(of: [name])
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400, issuer: subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames([.dnsName(name)])
                Certificate.Extension(oid: acmeIdentifier, critical: true, value: digest.serializedBytes[...])
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
    }
}
