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
/// in the data directory in force at start when it covers every name; obtains one over ACME when
/// there is none; renews it once two thirds of its lifetime have passed, and puts the new one in
/// force without a restart. A failed attempt is logged and retried, sooner at first, at most an
/// hour apart; the certificate in force serves meanwhile.
///
/// The first order runs while the ports serve: its challenge is answered by the main port
/// (TLS-ALPN-01) or the plain-HTTP port (HTTP-01), which refuse every other handshake and
/// redirect every other request until then.
package struct ACMECertificateManager: Service {
    package let settings: ACMESettings
    let files: ACMEFiles
    package let certificates: TLSCertificates
    let logger: Logger

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
        guard FileManager.default.fileExists(atPath: files.certificatePath) else { return false }
        do {
            try certificates.load(certificatePath: files.certificatePath, keyPath: files.keyPath)
        } catch {
            logger.warning("the kept ACME certificate cannot be served; a new one is ordered", metadata: ["error": "\(error)"])
            return false
        }
        return covers(certificates.leaf)
    }

    package func run() async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let roots = settings.trustedRootsFile { tls.additionalTrustRoots = [.file(roots)] }
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        do {
            try await cancelWhenGracefulShutdown { try await keepCertificate(using: http) }
        } catch is CancellationError {
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    /// Obtains a certificate whenever the one in force is missing, foreign or due, until
    /// cancelled.
    private func keepCertificate(using http: HTTPClient) async throws {
        let client = ACMEClient(directoryURL: settings.directoryURL, accountKey: try files.accountKey(), http: http)
        var failures = 0
        while true {
            let leaf = certificates.leaf
            if covers(leaf), let leaf {
                try await Task.sleep(until: Self.renewalTime(of: leaf))
            }
            do {
                try await obtain(with: client)
                failures = 0
            } catch {
                failures += 1
                let delay = Self.retryDelay(afterFailures: failures)
                logger.error(
                    "no certificate obtained over ACME; trying again in \(delay)",
                    metadata: ["names": "\(settings.names.joined(separator: ","))", "error": "\(error)"])
                try await Task.sleep(for: delay)
            }
        }
    }

    private func obtain(with client: ACMEClient) async throws(ACMEError) {
        logger.notice("ordering a certificate over ACME", metadata: ["names": "\(settings.names.joined(separator: ","))"])
        try await client.register(contact: settings.contactEmail.map { ["mailto:\($0)"] } ?? [])
        let order = CertificateOrder(
            client: client, names: settings.names, kind: settings.challenge, responses: certificates.challenges,
            timeLimit: settings.orderTimeLimit, logger: logger)
        try files.keep(try await order.place())
        do {
            try certificates.load(certificatePath: files.certificatePath, keyPath: files.keyPath)
        } catch {
            throw .orderFailed(reason: "the issued certificate cannot be served: \(error)")
        }
        logger.notice(
            "certificate obtained over ACME and served",
            metadata: [
                "names": "\(settings.names.joined(separator: ","))", "expires": "\(certificates.leaf?.notValidAfter.description ?? "?")",
            ])
    }

    /// Whether `leaf` names every name asked for.
    private func covers(_ leaf: Certificate?) -> Bool {
        guard let leaf, let names = try? leaf.extensions.subjectAlternativeNames else { return false }
        let served = Set(names.compactMap { name -> String? in if case .dnsName(let dns) = name { dns.lowercased() } else { nil } })
        return settings.names.allSatisfy { served.contains($0.lowercased()) }
    }

    /// When two thirds of `leaf`'s lifetime have passed.
    static func renewalTime(of leaf: Certificate) -> ContinuousClock.Instant {
        let lifetime = leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore)
        let due = leaf.notValidBefore.addingTimeInterval(lifetime * 2 / 3)
        return ContinuousClock.now + .milliseconds(Int64(max(0, due.timeIntervalSinceNow) * 1000))
    }

    /// 5 s after a first failure, doubling, at most an hour.
    static func retryDelay(afterFailures failures: Int) -> Duration {
        .seconds(min(5 << min(failures - 1, 20), 3600))
    }
}
