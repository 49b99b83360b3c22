import Foundation
import NIOCore
import NIOPosix
import NIOSSL

extension SMTPConnection {
    /// `error`, a failure of the channel while `step` awaited its reply, as a ``MailError``.
    func mailError(_ error: any Error, during step: String) -> MailError {
        switch error {
        case let error as MailError: error
        case SMTPChannelFailure.timedOut: .timedOut(server: server, step: step)
        case SMTPChannelFailure.closed: .connectionClosed(server: server, step: step)
        case SMTPChannelFailure.malformedReply(let reason): .protocolViolation(server: server, reason: reason)
        case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError: .tlsFailed(server: server, reason: tlsFailureReason(error))
        default: .connectionFailed(server: server, reason: "\(Self.connectionFailureReason(error)) (during \(step))")
        }
    }

    /// Why a connection could not be made or broke, in a few words: the system's message for an
    /// I/O error, the resolver's failure, or a connection timeout.
    static func connectionFailureReason(_ error: any Error) -> String {
        switch error {
        case let error as NIOConnectionError:
            if error.connectionErrors.count == 1 { return connectionFailureReason(error.connectionErrors[0].error) }
            if !error.connectionErrors.isEmpty {
                return error.connectionErrors.map { "\($0.target.ipAddress ?? "\($0.target)"): \(connectionFailureReason($0.error))" }
                    .joined(separator: "; ")
            }
            return "the host name \(error.host) could not be resolved"
        case let error as IOError: return String(cString: strerror(error.errnoCode))
        case ChannelError.connectTimeout(let time): return "no connection within \(time.nanoseconds / 1_000_000_000) s"
        default: return "\(error)"
        }
    }

    /// A TLS failure in a few words: BoringSSL's reasons without its source locations, and a hint
    /// for the common case of an untrusted certificate.
    private func tlsFailureReason(_ error: any Error) -> String {
        guard case NIOSSLError.handshakeFailed(.sslError(let stack)) = error, !stack.isEmpty else { return "\(error)" }
        // Each entry reads "Error: <code> error:<hex>:<library>:<function>:<REASON> at <file>:<line>".
        let reasons = stack.map { entry in
            let text = entry.description
            let message = text.range(of: " at ").map { text[..<$0.lowerBound] } ?? text[...]
            return String(message.split(separator: ":").last ?? message)
        }
        let hint = reasons.contains("CERTIFICATE_VERIFY_FAILED") ? " (its certificate is not trusted by this system)" : ""
        return reasons.joined(separator: ", ") + hint
    }
}
