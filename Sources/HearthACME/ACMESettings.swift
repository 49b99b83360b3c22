/// What `hearth serve --https NAME…` obtains certificates for, and from where.
package struct ACMESettings: Sendable {
    /// Let's Encrypt's production directory.
    package static let letsEncrypt = "https://acme-v02.api.letsencrypt.org/directory"

    /// The names of the certificate; the first is its subject.
    package var names: [String]
    /// The ACME server's directory.
    package var directoryURL = ACMESettings.letsEncrypt
    /// How names are proven.
    package var challenge: ACMEChallengeKind
    /// Where the ACME server may write about the account (expiry notices), if anywhere.
    package var contactEmail: String?
    /// A PEM file of roots trusted for the ACME server's own HTTPS besides the system's (a
    /// private or test CA).
    package var trustedRootsFile: String?
    /// How long one order may take before it counts as failed.
    package var orderTimeLimit: Duration = .seconds(300)

    package init(names: [String], challenge: ACMEChallengeKind) {
        self.names = names
        self.challenge = challenge
    }

    /// Whether `name` is a DNS name HTTP-01 and TLS-ALPN-01 can prove: labels of letters,
    /// digits and inner hyphens, at least two of them, no wildcard, no address.
    package static func isCertifiable(_ name: String) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= 253, labels.count >= 2, !labels.last!.allSatisfy(\.isNumber) else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// The most names one certificate holds (Let's Encrypt's limit).
    package static let maximumNames = 100

    /// Whether `address` can be an account's contact: one `@` between a local part and a
    /// certifiable domain, nothing a `mailto:` URL would need to escape.
    package static func isContactEmail(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, isCertifiable(String(parts[1])) else { return false }
        return parts[0].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".!#$%&'*+-/=^_`{|}~".contains($0)) }
    }
}
