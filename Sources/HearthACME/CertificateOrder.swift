import Crypto
import HearthEdge
import Logging
import SwiftASN1
import X509

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One certificate for `names` obtained over ACME (RFC 8555 §7.4): an order, each name proven
/// with a challenge of `kind` answered through `responses`, a CSR for a new P-256 key, and the
/// chain downloaded once the order is valid.
struct CertificateOrder: Sendable {
    /// What an order gives: the chain (PEM, leaf first) and the key of its leaf.
    struct Issued: Sendable {
        let chainPEM: String
        let key: P256.Signing.PrivateKey
    }

    let client: ACMEClient
    let names: [String]
    let kind: ACMEChallengeKind
    let responses: ACMEChallengeResponses
    /// How long one order may take in all.
    let timeLimit: Duration
    let logger: Logger

    func place() async throws(ACMEError) -> Issued {
        let deadline = ContinuousClock.now + timeLimit
        struct NewOrder: Encodable { let identifiers: [ACMEMessages.Identifier] }
        let placed = try await client.post(try await client.resources().newOrder, json: NewOrder(identifiers: names.map { .dns($0) }))
        guard let orderURL = placed.location else { throw .malformedResponse(url: placed.url, reason: "no Location for the order") }
        var order = try placed.decoded(as: ACMEMessages.Order.self)
        // A server may answer an order it has already seen (the same names, recently) in any
        // state: each step runs only when the order is where that step begins.
        if order.status == "pending" {
            for authorization in order.authorizations {
                try await authorize(authorization, until: deadline)
            }
            order = try await poll(orderURL, until: deadline, while: ["pending"])
        }
        let key = P256.Signing.PrivateKey()
        if order.status == "ready" {
            struct Finalize: Encodable { let csr: String }
            _ = try await client.post(order.finalize, json: Finalize(csr: Base64URL.encode(try signingRequest(for: key))))
        }
        order = try await poll(orderURL, until: deadline, while: ["ready", "processing"])
        guard order.status == "valid", let certificateURL = order.certificate else {
            throw .orderFailed(reason: order.error?.description ?? "the order is \(order.status)")
        }
        let chain = try await client.read(certificateURL, accept: "application/pem-certificate-chain")
        return Issued(chainPEM: String(buffer: chain.body), key: key)
    }

    /// Proves control of the name of the authorization at `url`, unless it is valid already.
    private func authorize(_ url: String, until deadline: ContinuousClock.Instant) async throws(ACMEError) {
        let authorization = try await client.read(url).decoded(as: ACMEMessages.Authorization.self)
        let name = authorization.identifier.value
        switch authorization.status {
        case "valid": return
        case "pending": break
        default: throw .validationFailed(name: name, reason: Self.failure(of: authorization, kind: kind))
        }
        guard let challenge = authorization.challenges.first(where: { $0.type == kind.rawValue }), let token = challenge.token else {
            throw .challengeNotOffered(name: name, wanted: kind.rawValue, offered: authorization.challenges.map(\.type))
        }
        guard !token.isEmpty, token.utf8.allSatisfy(Self.isBase64URL) else {
            throw .malformedResponse(url: challenge.url, reason: "the challenge's token is not base64url")
        }
        let keyAuthorization = client.accountKey.keyAuthorization(of: token)
        switch kind {
        case .http01:
            responses.present(keyAuthorization: keyAuthorization, forToken: token)
        case .tlsALPN01:
            do {
                responses.present(context: try ChallengeCertificate.context(name: name, keyAuthorization: keyAuthorization), forName: name)
            } catch {
                throw .validationFailed(name: name, reason: "cannot make the challenge certificate: \(error)")
            }
        }
        defer {
            switch kind {
            case .http01: responses.withdraw(token: token)
            case .tlsALPN01: responses.withdraw(name: name)
            }
        }
        logger.info("answering the ACME \(kind.rawValue) challenge", metadata: ["name": "\(name)"])
        struct Ready: Encodable {}
        _ = try await client.post(challenge.url, json: Ready())
        let answered: ACMEMessages.Authorization = try await poll(url, until: deadline, while: ["pending"])
        guard answered.status == "valid" else { throw .validationFailed(name: name, reason: Self.failure(of: answered, kind: kind)) }
    }

    /// Why `authorization` is not valid: its challenge's error, or its status.
    private static func failure(of authorization: ACMEMessages.Authorization, kind: ACMEChallengeKind) -> String {
        authorization.challenges.first { $0.type == kind.rawValue }?.error?.description ?? "the authorization is \(authorization.status)"
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D || byte == 0x5F
    }

    /// How long a poller waits between reads at least, and at most.
    private static let pollInterval = (least: Duration.seconds(1), most: Duration.seconds(60))

    /// Reads the resource at `url` until its status is none of `waiting`, as often as the server
    /// asks (a second by default, between ``pollInterval``'s bounds).
    private func poll<Resource: Decodable & Sendable & HasStatus>(
        _ url: String, until deadline: ContinuousClock.Instant, while waiting: Set<String>
    ) async throws(ACMEError) -> Resource {
        while true {
            let answer = try await client.read(url)
            let resource = try answer.decoded(as: Resource.self)
            guard waiting.contains(resource.status) else { return resource }
            let pause = min(max(answer.retryAfter ?? Self.pollInterval.least, Self.pollInterval.least), Self.pollInterval.most)
            guard ContinuousClock.now + pause < deadline else { throw .timedOut(waitingFor: "\(url) (\(resource.status))") }
            do {
                try await Task.sleep(for: pause)
            } catch {
                throw .cancelled
            }
        }
    }

    /// The DER of a CSR for every name, signed by `key`.
    private func signingRequest(for key: P256.Signing.PrivateKey) throws(ACMEError) -> [UInt8] {
        do {
            let request = try CertificateSigningRequest(
                version: .v1, subject: try Self.subject(of: names), privateKey: Certificate.PrivateKey(key),
                attributes: CertificateSigningRequest.Attributes([
                    try CertificateSigningRequest.Attribute(
                        ExtensionRequest(extensions: try Certificate.Extensions { SubjectAlternativeNames(names.map { .dnsName($0) }) }))
                ]),
                signatureAlgorithm: .ecdsaWithSHA256)
            var serializer = DER.Serializer()
            try serializer.serialize(request)
            return serializer.serializedBytes
        } catch {
            throw .orderFailed(reason: "cannot make the certificate signing request: \(error)")
        }
    }
}

extension CertificateOrder {
    /// The subject of a certificate for `names`: the first name that fits a common name (64
    /// bytes, RFC 5280), else none; the names themselves are in the subject alternative names.
    static func subject(of names: [String]) throws -> DistinguishedName {
        guard let name = names.first(where: { $0.utf8.count <= 64 }) else { return DistinguishedName() }
        return try DistinguishedName { CommonName(name) }
    }
}

/// A resource with a status a poller waits on.
protocol HasStatus {
    var status: String { get }
}

extension ACMEMessages.Order: HasStatus {}
extension ACMEMessages.Authorization: HasStatus {}
