/// Why a certificate could not be obtained over ACME.
package enum ACMEError: Error, Equatable, CustomStringConvertible {
    /// The ACME server could not be reached, or its answer not read.
    case unreachable(url: String, reason: String)
    /// The ACME server answered a request with an error, and maybe how long to wait before
    /// asking again (`Retry-After`).
    case refused(url: String, status: Int, problem: String, retryAfter: Duration?)
    /// The ACME server's answer is not what RFC 8555 says it is.
    case malformedResponse(url: String, reason: String)
    /// No challenge of the kind Hearth answers was offered for a name.
    case challengeNotOffered(name: String, wanted: String, offered: [String])
    /// The ACME server could not validate a name.
    case validationFailed(name: String, reason: String)
    /// The order ended without a certificate.
    case orderFailed(reason: String)
    /// The ACME server took longer than the deadline.
    case timedOut(waitingFor: String)
    /// A key or certificate cannot be read from or written to the data directory.
    case cannotKeep(path: String, reason: String)
    /// The server is shutting down.
    case cancelled

    package var description: String {
        switch self {
        case .unreachable(let url, let reason): "cannot reach the ACME server at \(url): \(reason)"
        case .refused(let url, let status, let problem, _): "the ACME server refused \(url) (\(status)): \(problem)"
        case .malformedResponse(let url, let reason): "the ACME server's answer from \(url) cannot be read: \(reason)"
        case .challengeNotOffered(let name, let wanted, let offered):
            "the ACME server offers no \(wanted) challenge for \(name) (offered: \(offered.joined(separator: ", ")))"
        case .validationFailed(let name, let reason): "the ACME server could not validate \(name): \(reason)"
        case .orderFailed(let reason): "the certificate order failed: \(reason)"
        case .timedOut(let what): "timed out waiting for \(what)"
        case .cannotKeep(let path, let reason): "cannot keep \(path): \(reason)"
        case .cancelled: "cancelled"
        }
    }

    /// How long the ACME server asked to be left alone, if it did.
    var retryAfter: Duration? {
        if case .refused(_, _, _, let retryAfter) = self { retryAfter } else { nil }
    }
}
