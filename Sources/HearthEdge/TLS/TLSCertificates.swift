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

    private let current = Mutex<Served?>(nil)
    /// The TLS-ALPN-01 certificates of the ACME validations under way.
    package let challenges = ACMEChallengeResponses()

    /// What is in force: the context and its leaf certificate.
    private struct Served {
        let context: NIOSSLContext
        let leaf: Certificate
    }

    /// Nothing in force yet.
    package init() {}

    /// The context new connections are served with, if a certificate is in force.
    package var context: NIOSSLContext? { current.withLock { $0?.context } }

    /// The leaf certificate in force, if any.
    package var leaf: Certificate? { current.withLock { $0?.leaf } }

    /// Reads the certificate chain at `certificatePath` and the key at `keyPath` and puts them in
    /// force, or throws why they cannot be, keeping what is in force.
    package func load(certificatePath: String, keyPath: String) throws(Failure) {
        let served = try Self.read(certificatePath: certificatePath, keyPath: keyPath, now: Date())
        current.withLock { $0 = served }
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

    private static func read(certificatePath: String, keyPath: String, now: Date) throws(Failure) -> Served {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw .unreadable(path: certificatePath, reason: "\(error)")
        }
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw .unreadable(path: keyPath, reason: "\(error)")
        }
        guard let first = chain.first else { throw .unreadable(path: certificatePath, reason: "it holds no certificate") }
        let leaf = try validLeaf(first, path: certificatePath, now: now)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = applicationProtocols
        do {
            return Served(context: try NIOSSLContext(configuration: configuration), leaf: leaf)
        } catch {
            throw .keyMismatch(certificate: certificatePath, key: keyPath)
        }
    }

    private static func validLeaf(_ leaf: NIOSSLCertificate, path: String, now: Date) throws(Failure) -> Certificate {
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: try leaf.toDERBytes())
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        if certificate.notValidAfter < now { throw .notValid(path: path, reason: "expired on \(certificate.notValidAfter)") }
        if certificate.notValidBefore > now { throw .notValid(path: path, reason: "is not valid before \(certificate.notValidBefore)") }
        return certificate
    }
}
