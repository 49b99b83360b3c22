import AsyncHTTPClient
import HearthEdge
import Logging
import NIOSSL
import ServiceLifecycle
import X509

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Keeps the main port's certificate for the names of `hearth serve --https`: puts the one kept
/// in the data directory in force at start when it names every name; obtains one over ACME when
/// there is none; renews it once two thirds of its lifetime have passed, and puts the new one in
/// force without a restart. A failed attempt is logged and retried, 5 s later at first, then
/// twice as long each time up to a day (or as long as the CA asks, if longer); the certificate in
/// force serves meanwhile.
///
/// The first order waits until the ports serve (``untilServing``): its challenge is answered by
/// the main port (TLS-ALPN-01) or the plain-HTTP port (HTTP-01), which refuse every other
/// handshake and redirect every other request until a certificate is in force.
package struct ACMECertificateManager: Service {
    package let settings: ACMESettings
    let files: ACMEFiles
    package let certificates: TLSCertificates
    let logger: Logger
    /// Returns once the ports that answer challenges serve.
    package var untilServing: @Sendable () async -> Void = {}

    /// How far ahead of this node's clock an issued certificate may begin: a clock somewhat
    /// behind the CA's must not refuse what clients accept.
    static let clockSkew: TimeInterval = 86400
    /// The longest sleep before the renewal time is computed again (the wall clock may jump).
    static let longestSleep = Duration.seconds(12 * 3600)

    package init(settings: ACMESettings, dataDirectory: String, certificates: TLSCertificates, logger: Logger) {
        self.settings = settings
        self.files = ACMEFiles(dataDirectory: dataDirectory)
        self.certificates = certificates
        self.logger = logger
    }

    /// Puts the certificate kept from an earlier run in force, if it can be served and names
    /// every name; whether it did.
    @discardableResult
    package func serveKept() -> Bool {
        guard let kept = files.keptCertificate() else { return false }
        do {
            let prepared = try prepare(kept)
            guard covers(prepared.leaf) else {
                logger.notice("the kept certificate does not name every --https name; a new one is ordered")
                return false
            }
            certificates.serve(prepared)
            return true
        } catch {
            logger.warning("the kept ACME certificate cannot be served; a new one is ordered", metadata: ["error": "\(error)"])
            return false
        }
    }

    package func run() async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let roots = settings.trustedRootsFile { tls.additionalTrustRoots = [.file(roots)] }
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        do {
            try await cancelWhenGracefulShutdown {
                await untilServing()
                try await keepCertificate(using: http)
            }
        } catch is CancellationError {
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    /// Obtains a certificate whenever the one in force is missing or due, until cancelled.
    private func keepCertificate(using http: HTTPClient) async throws {
        var client: ACMEClient?
        var failures = 0
        while true {
            if let leaf = certificates.leaf {
                let wait = Self.renewalDate(of: leaf).timeIntervalSinceNow
                if wait > 0 {
                    try await Task.sleep(for: min(.milliseconds(Int64(wait * 1000)), Self.longestSleep))
                    continue
                }
            }
            do {
                let current = try client ?? ACMEClient(directoryURL: settings.directoryURL, accountKey: try files.accountKey(), http: http)
                client = current
                try await obtain(with: current)
                failures = 0
            } catch {
                if Task.isCancelled { throw CancellationError() }
                failures += 1
                let delay = max(Self.retryDelay(afterFailures: failures), (error as? ACMEError)?.retryAfter ?? .zero)
                logger.error(
                    "no certificate obtained over ACME; trying again in \(delay)",
                    metadata: ["names": "\(settings.names.joined(separator: ","))", "error": "\(error)"])
                try await Task.sleep(for: delay)
            }
        }
    }

    /// Orders a certificate, checks that it can be served, names every name and is not due at
    /// once, keeps it, and puts it in force.
    private func obtain(with client: ACMEClient) async throws(ACMEError) {
        logger.notice("ordering a certificate over ACME", metadata: ["names": "\(settings.names.joined(separator: ","))"])
        try await client.register(contact: settings.contactEmail.map { ["mailto:\($0)"] } ?? [])
        let order = CertificateOrder(
            client: client, names: settings.names, kind: settings.challenge, responses: certificates.challenges,
            timeLimit: settings.orderTimeLimit, logger: logger)
        let issued = try await order.place()
        let pem = issued.key.pemRepresentation + "\n" + issued.chainPEM
        let prepared: TLSCertificates.Prepared
        do {
            prepared = try prepare(Array(pem.utf8))
        } catch {
            throw .orderFailed(reason: "the issued certificate cannot be served: \(error)")
        }
        guard covers(prepared.leaf) else { throw .orderFailed(reason: "the issued certificate does not name every name") }
        guard Self.renewalDate(of: prepared.leaf) > Date() else {
            throw .orderFailed(reason: "the issued certificate is due for renewal at once (valid until \(prepared.leaf.notValidAfter))")
        }
        try files.keep(pem)
        certificates.serve(prepared)
        logger.notice(
            "certificate obtained over ACME and served",
            metadata: ["names": "\(settings.names.joined(separator: ","))", "expires": "\(prepared.leaf.notValidAfter)"])
    }

    /// Checks a key and chain in one PEM text.
    private func prepare(_ pem: [UInt8]) throws(TLSCertificates.Failure) -> TLSCertificates.Prepared {
        try TLSCertificates.prepare(
            chainPEM: pem, keyPEM: pem, certificateName: files.certificatePath, keyName: files.certificatePath,
            earlyStart: Self.clockSkew)
    }

    /// Whether `leaf` names every name asked for.
    private func covers(_ leaf: Certificate) -> Bool {
        guard let names = try? leaf.extensions.subjectAlternativeNames else { return false }
        let served = Set(names.compactMap { name -> String? in if case .dnsName(let dns) = name { dns.lowercased() } else { nil } })
        return settings.names.allSatisfy { served.contains($0.lowercased()) }
    }

    /// When two thirds of `leaf`'s lifetime have passed.
    static func renewalDate(of leaf: Certificate) -> Date {
        leaf.notValidBefore.addingTimeInterval(leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore) * 2 / 3)
    }

    /// 5 s after a first failure, doubling, at most a day.
    static func retryDelay(afterFailures failures: Int) -> Duration {
        .seconds(min(5 << min(failures - 1, 20), 86400))
    }
}
