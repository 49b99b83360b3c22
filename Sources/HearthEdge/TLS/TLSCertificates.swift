import HearthSupport
import Logging
import NIOSSL
import Synchronization
import X509

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The certificate the main port serves TLS with, replaced without a restart: connections opened
/// after a replacement get the new certificate, those open keep theirs. It comes from files the
/// operator names (``TLSCertificateFiles``) or that ACME put in the data directory; until one is
/// in force (ACME's first order), a handshake is refused unless it answers an ACME challenge
/// (``challenges``).
///
/// A certificate that cannot be used — unreadable, not matching its key, expired or not yet
/// valid — is refused with an error naming it, and the one in force stays.
package final class TLSCertificates: Sendable {
    /// Why a certificate cannot be served.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case keyMismatch(certificate: String, key: String)
        case notValid(path: String, reason: String)

        package var description: String {
            switch self {
            case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
            case .keyMismatch(let certificate, let key): "the key \(key) is not the key of the certificate \(certificate)"
            case .notValid(let path, let reason): "the certificate \(path) \(reason)"
            }
        }
    }

    /// The application protocols the main port offers, HTTP/2 first.
    package static let applicationProtocols = ["h2", "http/1.1"]

    private let current = Mutex<Prepared?>(nil)
    /// The TLS-ALPN-01 certificates of the ACME validations under way.
    package let challenges = ACMEChallengeResponses()

    /// Nothing in force yet.
    package init() {}

    /// The context new connections are served with, if a certificate is in force.
    package var context: NIOSSLContext? { current.withLock { $0?.context } }

    /// The leaf certificate in force, if any.
    package var leaf: Certificate? { current.withLock { $0?.leaf } }

    /// Reads the certificate chain at `certificatePath` and the key at `keyPath` and puts them in
    /// force, or throws why they cannot be, keeping what is in force.
    package func load(certificatePath: String, keyPath: String) throws(Failure) {
        let chain: [UInt8]
        let key: [UInt8]
        do {
            chain = Array(try Data(contentsOf: URL(fileURLWithPath: certificatePath)))
        } catch {
            throw .unreadable(path: certificatePath, reason: "\(error)")
        }
        do {
            key = Array(try Data(contentsOf: URL(fileURLWithPath: keyPath)))
        } catch {
            throw .unreadable(path: keyPath, reason: "\(error)")
        }
        serve(try Self.prepare(chainPEM: chain, keyPEM: key, certificateName: certificatePath, keyName: keyPath))
    }

    /// Puts `prepared` in force.
    package func serve(_ prepared: Prepared) {
        current.withLock { $0 = prepared }
    }

    /// A certificate chain and its key, checked and ready to be served.
    package struct Prepared: Sendable {
        let context: NIOSSLContext
        package let leaf: Certificate
    }

    /// Checks the PEM chain (leaf first) and the PEM key that `certificateName` and `keyName`
    /// name in errors: readable, matching, and valid now (a certificate valid from less than
    /// `earlyStart` from now counts as valid: a clock behind the issuer's).
    package static func prepare(
        chainPEM: [UInt8], keyPEM: [UInt8], certificateName: String, keyName: String, now: Date = Date(),
        earlyStart: TimeInterval = 0
    ) throws(Failure) -> Prepared {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(chainPEM)
        } catch {
            throw .unreadable(path: certificateName, reason: "\(error)")
        }
        do {
            key = try NIOSSLPrivateKey(bytes: keyPEM, format: .pem)
        } catch {
            throw .unreadable(path: keyName, reason: "\(error)")
        }
        guard let first = chain.first else { throw .unreadable(path: certificateName, reason: "it holds no certificate") }
        let leaf = try validLeaf(first, path: certificateName, now: now, earlyStart: earlyStart)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = applicationProtocols
        do {
            return Prepared(context: try NIOSSLContext(configuration: configuration), leaf: leaf)
        } catch {
            throw .keyMismatch(certificate: certificateName, key: keyName)
        }
    }

    /// The context a connection whose handshake began with `hello` is served with: the
    /// challenge certificate of its server name when it asks for ACME's protocol only, else the
    /// certificate in force; `nil` refuses it.
    package func context(for hello: ClientHello?) -> NIOSSLContext? {
        if let hello, hello.applicationProtocols == [ACMEChallengeResponses.applicationProtocol], let name = hello.serverName {
            return challenges.context(forName: name)
        }
        return context
    }

    private static func validLeaf(_ leaf: NIOSSLCertificate, path: String, now: Date, earlyStart: TimeInterval) throws(Failure)
        -> Certificate
    {
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: try leaf.toDERBytes())
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        if certificate.notValidAfter < now { throw .notValid(path: path, reason: "expired on \(certificate.notValidAfter)") }
        if certificate.notValidBefore > now.addingTimeInterval(earlyStart) {
            throw .notValid(path: path, reason: "is not valid before \(certificate.notValidBefore)")
        }
        return certificate
    }
}
