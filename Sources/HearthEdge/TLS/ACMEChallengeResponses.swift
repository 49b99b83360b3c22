import NIOSSL
import Synchronization

/// What the ACME validations under way expect to find: for HTTP-01, the key authorization served
/// at `/.well-known/acme-challenge/<token>` on the plain-HTTP port; for TLS-ALPN-01, a
/// certificate served to a handshake that asks for the server name with ALPN `acme-tls/1` only
/// (RFC 8737). Each is present only while its validation runs.
package final class ACMEChallengeResponses: Sendable {
    /// The application protocol of TLS-ALPN-01 validations.
    package static let applicationProtocol = "acme-tls/1"

    private let keyAuthorizations = Mutex<[String: String]>([:])
    private let contexts = Mutex<[String: NIOSSLContext]>([:])

    package init() {}

    /// Serves `keyAuthorization` for `token` until ``withdraw(token:)``.
    package func present(keyAuthorization: String, forToken token: String) {
        keyAuthorizations.withLock { $0[token] = keyAuthorization }
    }

    package func withdraw(token: String) {
        keyAuthorizations.withLock { $0[token] = nil }
    }

    /// The key authorization an HTTP-01 validation of `token` expects, if one runs.
    package func keyAuthorization(forToken token: String) -> String? {
        keyAuthorizations.withLock { $0[token] }
    }

    /// Serves `context` to TLS-ALPN-01 validations of `name` until ``withdraw(name:)``.
    package func present(context: NIOSSLContext, forName name: String) {
        contexts.withLock { $0[name.lowercased()] = context }
    }

    package func withdraw(name: String) {
        contexts.withLock { $0[name.lowercased()] = nil }
    }

    /// The context a TLS-ALPN-01 validation of `name` is served, if one runs.
    package func context(forName name: String) -> NIOSSLContext? {
        contexts.withLock { $0[name.lowercased()] }
    }
}
