import Crypto
import Foundation
import HearthEdge
import SwiftASN1
import Testing
import X509

@testable import HearthACME

/// The parts of the ACME client that need no ACME server (the whole is tested against Pebble in
/// `Tests/Interop/test_acme.py`).
struct ACMETests {
    @Test func namesACertificateCanBeObtainedFor() {
        for name in ["hearth.test", "api.example.com", "a-b.example.co.uk", "xn--bcher-kva.example"] {
            #expect(ACMESettings.isCertifiable(name), "\(name)")
        }
        for name in [
            "localhost", "*.example.com", "10.0.0.1", "-a.example.com", "a-.example.com", "a..example.com", ".example.com",
            "example.com.", "exa mple.com", "bücher.example", String(repeating: "a", count: 64) + ".com",
        ] {
            #expect(!ACMESettings.isCertifiable(name), "\(name)")
        }
    }

    @Test func requestsAreSignedByTheAccountKeyNamedByJWKThenByAccount() throws {
        let account = ACMEAccountKey(key: P256.Signing.PrivateKey())
        let payload = Data(#"{"termsOfServiceAgreed":true}"#.utf8)
        for accountURL in [nil, "https://ca.test/acct/1"] {
            let jws =
                try JSONSerialization.jsonObject(
                    with: try account.sign(payload, url: "https://ca.test/new", nonce: "n1", accountURL: accountURL)) as! [String: String]
            let protected = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(jws["protected"]!)!)) as! [String: Any]
            #expect(protected["alg"] as? String == "ES256" && protected["nonce"] as? String == "n1")
            #expect(protected["url"] as? String == "https://ca.test/new")
            #expect((protected["jwk"] == nil) == (accountURL != nil) && protected["kid"] as? String == accountURL)
            #expect(Data(Base64URL.decode(jws["payload"]!)!) == payload)
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: Base64URL.decode(jws["signature"]!)!)
            #expect(account.key.publicKey.isValidSignature(signature, for: Data("\(jws["protected"]!).\(jws["payload"]!)".utf8)))
        }
        // POST-as-GET: an empty payload.
        let read = try JSONSerialization.jsonObject(with: try account.sign(nil, url: "u", nonce: "n", accountURL: "a")) as! [String: String]
        #expect(read["payload"] == "")
    }

    @Test func keyAuthorizationsEndWithTheThumbprintOfTheJWK() throws {
        let account = ACMEAccountKey(key: P256.Signing.PrivateKey())
        let jwk = account.jwk
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(jwk.x)","y":"\#(jwk.y)"}"#
        let thumbprint = Base64URL.encode(Array(SHA256.hash(data: Data(canonical.utf8))))
        #expect(account.keyAuthorization(of: "tok") == "tok.\(thumbprint)")
        #expect(Base64URL.decode(jwk.x)?.count == 32 && Base64URL.decode(jwk.y)?.count == 32)
    }

    @Test func theChallengeCertificateCarriesTheDigestOfTheKeyAuthorization() throws {
        let certificate = try ChallengeCertificate.certificate(
            name: "hearth.test", keyAuthorization: "tok.print", key: P256.Signing.PrivateKey())
        let identifier = try #require(certificate.extensions.first { $0.oid == ChallengeCertificate.acmeIdentifier })
        #expect(identifier.critical)
        let digest = try ASN1OctetString(derEncoded: identifier.value)
        #expect(Array(digest.bytes) == Array(SHA256.hash(data: Data("tok.print".utf8))))
        #expect(try certificate.extensions.subjectAlternativeNames == SubjectAlternativeNames([.dnsName("hearth.test")]))
    }

    @Test func aLongFirstNameLeavesTheSubjectToTheAlternativeNames() throws {
        #expect(try CertificateOrder.subject(of: ["hearth.test"]) == DistinguishedName { CommonName("hearth.test") })
        let long = String(repeating: "a", count: 60) + ".example.com"
        #expect(try CertificateOrder.subject(of: [long, "short.test"]) == DistinguishedName { CommonName("short.test") })
        #expect(try CertificateOrder.subject(of: [long]) == DistinguishedName())
    }

    @Test func certificatesAreRenewedAfterTwoThirdsOfTheirLifetimeAndFailuresRetriedLessOften() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("hearth.test") }
        let start = Date().addingTimeInterval(-60)
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: start,
            notValidAfter: start.addingTimeInterval(90 * 86400), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions(), issuerPrivateKey: .init(key))
        let due = ACMECertificateManager.renewalDate(of: leaf)
        #expect(abs(due.timeIntervalSince(start) - 60 * 86400) < 1)
        let delays: [Duration] = [1, 2, 3, 10, 15, 1000].map { ACMECertificateManager.retryDelay(afterFailures: $0) }
        let expected: [Duration] = [.seconds(5), .seconds(10), .seconds(20), .seconds(2560), .seconds(81920), .seconds(86400)]
        #expect(delays == expected)
    }
}
