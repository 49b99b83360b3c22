import HearthSupport
import Logging
import ServiceLifecycle

/// The certificate chain and key files the operator names (`--tls-cert`, `--tls-key`): read at
/// start, where a certificate that cannot be used stops the server, and read again when either
/// file changes, where it is refused with a log line and the one in force stays.
package struct TLSCertificateFiles: Sendable {
    package let certificatePath: String
    package let keyPath: String
    package let certificates: TLSCertificates
    private let logger: Logger

    /// Reads both files and puts them in force in `certificates`.
    package init(certificatePath: String, keyPath: String, into certificates: TLSCertificates, logger: Logger)
        throws(TLSCertificates.Failure)
    {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.certificates = certificates
        self.logger = logger
        try certificates.load(certificatePath: certificatePath, keyPath: keyPath)
    }

    /// Reads the files again and puts them in force, or keeps the certificate in force and logs
    /// why the new one cannot be used.
    package func reload() {
        do {
            try certificates.load(certificatePath: certificatePath, keyPath: keyPath)
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
}
