import HearthACME
import HearthEdge
import ServiceLifecycle

/// Where the main port's certificate comes from when it serves HTTPS.
package enum TLSSource: Sendable {
    /// Files the operator names and renews (`--tls-cert`, `--tls-key`), reloaded when they change.
    case files(TLSCertificateFiles)
    /// Obtained and renewed over ACME for the names of `--https`.
    case acme(ACMECertificateManager)

    /// What the main port serves with.
    var certificates: TLSCertificates {
        switch self {
        case .files(let files): files.certificates
        case .acme(let manager): manager.certificates
        }
    }

    /// The service that keeps the certificate current while Hearth serves; its first ACME
    /// order waits for `untilServing`.
    func keeper(untilServing: @escaping @Sendable () async -> Void) -> any Service {
        switch self {
        case .files(let files):
            return files.watcher()
        case .acme(var manager):
            manager.untilServing = untilServing
            return manager
        }
    }
}
