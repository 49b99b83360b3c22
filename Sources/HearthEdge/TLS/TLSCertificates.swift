import HearthSupport
import Logging
import NIOSSL
import ServiceLifecycle
import Synchronization
import X509

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The certificate and key the main port serves TLS with (`--tls-cert`, `--tls-key`), read from
/// PEM files and read again when either changes, without a restart: connections opened after a
/// reload get the new certificate, those open keep theirs.
///
/// A certificate that cannot be used — unreadable, not matching its key, expired or not yet
/// valid — is refused: at start with an error naming it, on a reload by keeping the certificate in
/// force and logging why.
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

    package let certificatePath: String
    package let keyPath: String
    private let current: Mutex<NIOSSLContext>
    private let logger: Logger

    /// Reads the certificate chain at `certificatePath` and the key at `keyPath`.
    package init(certificatePath: String, keyPath: String, logger: Logger) throws(Failure) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.logger = logger
        self.current = Mutex(try Self.context(certificatePath: certificatePath, keyPath: keyPath, now: Date()))
    }

    /// The context new connections are served with.
    package var context: NIOSSLContext { current.withLock { $0 } }

    /// Reads the files again and puts them in force, or keeps the certificate in force and logs
    /// why the new one cannot be used.
    package func reload() {
        do {
            let context = try Self.context(certificatePath: certificatePath, keyPath: keyPath, now: Date())
            current.withLock { $0 = context }
            logger.notice("TLS certificate reloaded", metadata: ["certificate": "\(certificatePath)"])
        } catch {
            logger.error("TLS certificate not reloaded; the previous one stays in force", metadata: ["error": "\(error)"])
        }
    }

    /// Watches both files and reloads when either changes.
    package func watcher() -> some Service {
        ServiceGroup(
            configuration: .init(
                services: [certificatePath, keyPath].map { WatchedFile(path: $0) { [self] in reload() } }, logger: logger))
    }

    private static func context(certificatePath: String, keyPath: String, now: Date) throws(Failure) -> NIOSSLContext {
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
        guard let leaf = chain.first else { throw .unreadable(path: certificatePath, reason: "it holds no certificate") }
        try checkValidity(of: leaf, path: certificatePath, now: now)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["h2", "http/1.1"]
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw .keyMismatch(certificate: certificatePath, key: keyPath)
        }
    }

    private static func checkValidity(of leaf: NIOSSLCertificate, path: String, now: Date) throws(Failure) {
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: try leaf.toDERBytes())
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        if certificate.notValidAfter < now { throw .notValid(path: path, reason: "expired on \(certificate.notValidAfter)") }
        if certificate.notValidBefore > now { throw .notValid(path: path, reason: "is not valid before \(certificate.notValidBefore)") }
    }
}
