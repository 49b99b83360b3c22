/// How Hearth proves to the ACME server that it serves a name.
package enum ACMEChallengeKind: String, Sendable, CaseIterable {
    /// A file served over plain HTTP on port 80 (the redirect port).
    case http01 = "http-01"
    /// A certificate served over TLS on port 443 (the main port) to ALPN `acme-tls/1`.
    case tlsALPN01 = "tls-alpn-01"
}
